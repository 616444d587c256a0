import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { ToolContext } from "../src/tools/define-tool.ts";
import { applyPatchTool } from "../src/tools/apply-patch-tool.ts";
import { readFileTool } from "../src/tools/read-file.ts";
import { runToolCall } from "../src/tools/run-tool-call.ts";
import { useTempWorkspace } from "./tool-test-workspace.ts";

const workspace = useTempWorkspace();
const CART = "export function total(a, b) {\n  return a - b;\n}\n";
const FIXED = "export function total(a, b) {\n  return a + b;\n}\n";
const FIX_PATCH =
  "*** Begin Patch\n*** Update File: cart.mjs\n@@ export function total(a, b) {\n-  return a - b;\n+  return a + b;\n*** End Patch\n";

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

describe("apply_patch tool", () => {
  it("applies a patch and says what changed", async () => {
    await put("cart.mjs", CART);
    const context = workspace.context();
    await call(context, "read_file", { path: "cart.mjs" });
    const outcome = await call(context, "apply_patch", { patch: FIX_PATCH });

    expect(outcome.ok).toBe(true);
    expect(outcome.summary).toBe("Patch applied: M cart.mjs.");
    expect(outcome.result).toMatchObject({
      success: true,
      files_changed: 1,
      changed: [{ op: "update", path: "cart.mjs" }],
      failures: [],
    });
    expect(await onDisk("cart.mjs")).toBe(FIXED);
  });

  it("refuses a patch whose lines are not in the file, and changes nothing", async () => {
    await put("cart.mjs", FIXED);
    const outcome = await call(workspace.context(), "apply_patch", { patch: FIX_PATCH });
    // The harness reads the verdict and the code from the result, never from the text.
    expect(outcome.ok).toBe(false);
    expect(outcome.code).toBe("context_not_found");
    expect(outcome.summary).toBe(
      "Patch not applied, no file changed. Failed: cart.mjs: context_not_found. Follow each failure's hint, then send the patch again.",
    );
    expect(outcome.result).toMatchObject({
      success: false,
      files_changed: 0,
      failures: [{ path: "cart.mjs", code: "context_not_found" }],
    });
    expect(await onDisk("cart.mjs")).toBe(FIXED);
  });

  it("adds and deletes files", async () => {
    const context = workspace.context();
    const add = "*** Begin Patch\n*** Add File: notes.md\n+# Notes\n*** End Patch\n";
    expect((await call(context, "apply_patch", { patch: add })).summary).toBe(
      "Patch applied: A notes.md.",
    );
    expect(await onDisk("notes.md")).toBe("# Notes\n");

    const remove = "*** Begin Patch\n*** Delete File: notes.md\n*** End Patch\n";
    expect((await call(context, "apply_patch", { patch: remove })).summary).toBe(
      "Patch applied: D notes.md.",
    );
    await expect(onDisk("notes.md")).rejects.toThrow(/ENOENT/);
  });
});
