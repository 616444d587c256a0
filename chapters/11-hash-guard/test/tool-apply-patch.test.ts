import { createHash } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ReadRecord } from "../src/patch/hash-guard.ts";
import type { ToolContext } from "../src/tools/define-tool.ts";
import { applyPatchTool } from "../src/tools/apply-patch-tool.ts";
import { readFileTool } from "../src/tools/read-file.ts";
import { runToolCall } from "../src/tools/run-tool-call.ts";
import { useTempWorkspace } from "./tool-test-workspace.ts";

const workspace = useTempWorkspace();
const hashOf = (text: string) => createHash("sha256").update(text).digest("hex");
const CART = "export function total(a, b) {\n  return a - b;\n}\n";
const FIXED = "export function total(a, b) {\n  return a + b;\n}\n";
const FIX_PATCH =
  "*** Begin Patch\n*** Update File: cart.mjs\n@@ export function total(a, b) {\n-  return a - b;\n+  return a + b;\n*** End Patch\n";

function contextWith(readRecord?: ReadRecord): ToolContext {
  return { ...workspace.context(), readRecord };
}

async function call(context: ToolContext, name: string, args: object) {
  const result = await runToolCall(
    [readFileTool, applyPatchTool],
    { id: "c", function: { name, arguments: JSON.stringify(args) } },
    context,
  );
  if (name !== "apply_patch") return { ...result, summary: "", result: {} };
  // apply_patch answers with a summary line, then the result as JSON.
  const [summary = "", json = "{}"] = result.content.split("\n");
  return { ...result, summary, result: JSON.parse(json) as Record<string, unknown> };
}

const onDisk = (relPath: string) => readFile(path.join(workspace.root(), relPath), "utf8");
const put = (relPath: string, text: string) =>
  writeFile(path.join(workspace.root(), relPath), text);

describe("read_file fills the read record", () => {
  it("records full reads and ignores partial ones", async () => {
    await put("cart.mjs", CART);
    const record = new ReadRecord();
    await call(contextWith(record), "read_file", { path: "cart.mjs", offset: 2 });
    expect(record.lastSeen("cart.mjs")).toBeUndefined();
    await call(contextWith(record), "read_file", { path: "./cart.mjs" });
    expect(record.lastSeen("cart.mjs")).toBe(hashOf(CART));
  });
});

describe("apply_patch tool", () => {
  it("refuses to update a file the agent never read", async () => {
    await put("cart.mjs", CART);
    const outcome = await call(contextWith(new ReadRecord()), "apply_patch", { patch: FIX_PATCH });
    expect(outcome.summary).toBe(
      "Patch not applied, no file changed. Failed: cart.mjs: not_read. Follow each failure's hint, then send the patch again.",
    );
    expect(outcome.result).toMatchObject({
      success: false,
      files_changed: 0,
      failures: [{ path: "cart.mjs", code: "not_read" }],
    });
    expect(await onDisk("cart.mjs")).toBe(CART);
  });

  it("refuses after a partial read, and without any read record", async () => {
    await put("cart.mjs", CART);
    const record = new ReadRecord();
    await call(contextWith(record), "read_file", { path: "cart.mjs", limit: 1 });
    expect(
      (await call(contextWith(record), "apply_patch", { patch: FIX_PATCH })).result,
    ).toMatchObject({
      failures: [{ code: "not_read" }],
    });
    expect((await call(contextWith(), "apply_patch", { patch: FIX_PATCH })).result).toMatchObject({
      failures: [{ code: "not_read" }],
    });
    expect(await onDisk("cart.mjs")).toBe(CART);
  });

  it("applies a patch after a full read and records the written hash", async () => {
    await put("cart.mjs", CART);
    const record = new ReadRecord();
    const context = contextWith(record);
    await call(context, "read_file", { path: "cart.mjs" });
    const outcome = await call(context, "apply_patch", { patch: FIX_PATCH });

    expect(outcome.ok).toBe(true);
    expect(outcome.summary).toBe(
      "Patch applied: M cart.mjs. What you wrote counts as read: you can patch these files again without re-reading them.",
    );
    expect(outcome.result).toMatchObject({
      success: true,
      files_changed: 1,
      changed: [{ op: "update", path: "cart.mjs", sha256: hashOf(FIXED) }],
      failures: [],
    });
    expect(await onDisk("cart.mjs")).toBe(FIXED);
    expect(record.lastSeen("cart.mjs")).toBe(hashOf(FIXED));

    // A second patch needs no re-read: the agent's own write counts as seen.
    const back = FIX_PATCH.replace(
      "-  return a - b;\n+  return a + b;",
      "-  return a + b;\n+  return a * b;",
    );
    expect((await call(context, "apply_patch", { patch: back })).result).toMatchObject({
      success: true,
    });
  });

  it("refuses a file that changed on disk since it was read, and keeps the old hash", async () => {
    await put("cart.mjs", CART);
    const record = new ReadRecord();
    const context = contextWith(record);
    await call(context, "read_file", { path: "cart.mjs" });
    const edited = CART.replace("a - b", "a - b ");
    await put("cart.mjs", edited);

    const outcome = await call(context, "apply_patch", { patch: FIX_PATCH });
    // The harness reads the verdict and the code from the result, never from the text.
    expect(outcome.ok).toBe(false);
    expect(outcome.code).toBe("file_changed");
    expect(outcome.result).toMatchObject({
      success: false,
      failures: [{ path: "cart.mjs", code: "file_changed", current_sha256: hashOf(edited) }],
    });
    expect(await onDisk("cart.mjs")).toBe(edited);
    // The harness never trusts a hash the agent has not seen.
    expect(record.lastSeen("cart.mjs")).toBe(hashOf(CART));
  });

  it("adds files without a read, records them, and forgets deleted ones", async () => {
    const record = new ReadRecord();
    const context = contextWith(record);
    const add = "*** Begin Patch\n*** Add File: notes.md\n+# Notes\n*** End Patch\n";
    expect((await call(context, "apply_patch", { patch: add })).summary).toMatch(
      /^Patch applied: A notes\.md\./,
    );
    expect(record.lastSeen("notes.md")).toBe(hashOf("# Notes\n"));

    const remove = "*** Begin Patch\n*** Delete File: notes.md\n*** End Patch\n";
    expect((await call(context, "apply_patch", { patch: remove })).summary).toMatch(
      /^Patch applied: D notes\.md\./,
    );
    expect(record.lastSeen("notes.md")).toBeUndefined();
  });
});
