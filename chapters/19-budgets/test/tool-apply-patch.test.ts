import { createHash } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { RunLedger } from "../src/ledger/run-ledger.ts";
import { NoteStore } from "../src/notes/note-store.ts";
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

function contextWith(ledger?: RunLedger): ToolContext {
  return { ...workspace.context(), ledger };
}

// The run's ledger, as the harness opens it at the start of a run; closed after each test, as the
// harness closes it at the end of a run, so no file handle is left to the garbage collector.
const opened: RunLedger[] = [];
async function openLedger(): Promise<RunLedger> {
  const ledger = await RunLedger.open(workspace.root(), { task: "Fix the total", model: "test" });
  opened.push(ledger);
  return ledger;
}
afterEach(async () => {
  await Promise.all(opened.splice(0).map((ledger) => ledger.close()));
});

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

describe("read_file fills the ledger", () => {
  it("records every read; only a full one counts as seen", async () => {
    await put("cart.mjs", CART);
    const ledger = await openLedger();
    await call(contextWith(ledger), "read_file", { path: "cart.mjs", offset: 2 });
    expect(ledger.lastKnownHash("cart.mjs")).toBeUndefined();
    await call(contextWith(ledger), "read_file", { path: "./cart.mjs" });
    expect(ledger.lastKnownHash("cart.mjs")).toBe(hashOf(CART));
    expect(ledger.events().filter((event) => event.type === "file_read")).toMatchObject([
      { path: "cart.mjs", sha256: hashOf(CART), full: false },
      { path: "cart.mjs", sha256: hashOf(CART), full: true },
    ]);
    await ledger.close();
  });
});

describe("apply_patch tool", () => {
  it("refuses to update a file the agent never read", async () => {
    await put("cart.mjs", CART);
    const outcome = await call(contextWith(await openLedger()), "apply_patch", {
      patch: FIX_PATCH,
    });
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

  it("refuses after a partial read, and without a ledger", async () => {
    await put("cart.mjs", CART);
    const ledger = await openLedger();
    await call(contextWith(ledger), "read_file", { path: "cart.mjs", limit: 1 });
    expect(
      (await call(contextWith(ledger), "apply_patch", { patch: FIX_PATCH })).result,
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
    const ledger = await openLedger();
    const context = contextWith(ledger);
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
    expect(ledger.lastKnownHash("cart.mjs")).toBe(hashOf(FIXED));

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
    const ledger = await openLedger();
    const context = contextWith(ledger);
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
    expect(ledger.lastKnownHash("cart.mjs")).toBe(hashOf(CART));
  });

  it("adds files without a read, records them, and forgets deleted ones", async () => {
    const ledger = await openLedger();
    const context = contextWith(ledger);
    const add = "*** Begin Patch\n*** Add File: notes.md\n+# Notes\n*** End Patch\n";
    expect((await call(context, "apply_patch", { patch: add })).summary).toMatch(
      /^Patch applied: A notes\.md\./,
    );
    expect(ledger.lastKnownHash("notes.md")).toBe(hashOf("# Notes\n"));

    const remove = "*** Begin Patch\n*** Delete File: notes.md\n*** End Patch\n";
    expect((await call(context, "apply_patch", { patch: remove })).summary).toMatch(
      /^Patch applied: D notes\.md\./,
    );
    expect(ledger.lastKnownHash("notes.md")).toBeUndefined();
  });

  it("reports a partly applied patch", async () => {
    await put("cart.mjs", CART);
    await put("other.mjs", "export const x = 1;\n");
    const ledger = await openLedger();
    const context = contextWith(ledger);
    await call(context, "read_file", { path: "cart.mjs" });
    const patch = FIX_PATCH.replace(
      "*** End Patch",
      "*** Update File: other.mjs\n-export const x = 1;\n+export const x = 2;\n*** End Patch",
    );
    const outcome = await call(context, "apply_patch", { patch });
    expect(outcome.summary).toBe(
      "Patch partly applied: M cart.mjs changed; failed: other.mjs: not_read. Fix the failures (see hint) and apply remaining_patch.",
    );
    expect(outcome.result.remaining_patch).toContain("*** Update File: other.mjs");
  });

  it("keeps the run's backups in a folder named after the ledger's run", async () => {
    await put("cart.mjs", CART);
    const ledger = await openLedger();
    const context = contextWith(ledger);
    await call(context, "read_file", { path: "cart.mjs" });
    await call(context, "apply_patch", { patch: FIX_PATCH });
    expect(
      await readFile(
        path.join(workspace.root(), ".agent/backups", ledger.runId, "files/cart.mjs"),
        "utf8",
      ),
    ).toBe(CART);
  });
});

describe("apply_patch records its writes in the ledger", () => {
  it("with the hashes before and after, moves as a delete and an add", async () => {
    await put("cart.mjs", CART);
    const ledger = await openLedger();
    const context = contextWith(ledger);
    await call(context, "read_file", { path: "cart.mjs" });
    await call(context, "apply_patch", { patch: FIX_PATCH });
    const move =
      "*** Begin Patch\n*** Update File: cart.mjs\n*** Move to: lib/cart.mjs\n@@\n-  return a + b;\n+  return b + a;\n*** End Patch\n";
    const moved = FIXED.replace("a + b", "b + a");
    expect((await call(context, "apply_patch", { patch: move })).result).toMatchObject({
      success: true,
    });

    expect(ledger.events().filter((event) => event.type === "file_written")).toMatchObject([
      { path: "cart.mjs", before_sha256: hashOf(CART), after_sha256: hashOf(FIXED), revision: 1 },
      { path: "cart.mjs", before_sha256: hashOf(FIXED), revision: 2 },
      { path: "lib/cart.mjs", after_sha256: hashOf(moved), revision: 3 },
    ]);
    expect(ledger.revision).toBe(3);
    expect(ledger.changedFiles()).toEqual([
      { path: "cart.mjs", status: "deleted", before_sha256: hashOf(CART), after_sha256: undefined },
      {
        path: "lib/cart.mjs",
        status: "added",
        before_sha256: undefined,
        after_sha256: hashOf(moved),
      },
    ]);
    expect(ledger.lastKnownHash("lib/cart.mjs")).toBe(hashOf(moved));
    expect(ledger.lastKnownHash("cart.mjs")).toBeUndefined();
    await ledger.close();
  });
});

describe("apply_patch leaves notes", () => {
  it('"Patch applied" as an action on success, "Patch failed" as a blocker on failure', async () => {
    await put("cart.mjs", CART);
    const ledger = await openLedger();
    const notes = new NoteStore(workspace.root());
    const context = { ...contextWith(ledger), notes };

    await call(context, "apply_patch", { patch: FIX_PATCH });
    await call(context, "read_file", { path: "cart.mjs" });
    await call(context, "apply_patch", { patch: FIX_PATCH });

    const [failed, applied] = await notes.list();
    expect(failed).toMatchObject({
      title: "Patch failed",
      type: "blocker",
      tags: ["patch", "not_read"],
    });
    expect(applied).toMatchObject({ title: "Patch applied", type: "action", tags: ["patch"] });
    const failedBody = (await notes.read(failed!.id)).body;
    expect(failedBody).toContain("## Error\n\n- cart.mjs: not_read: ");
    expect(failedBody).toContain("## User input\n\nFix the total\n");
    expect(failedBody).toContain("```patch\n" + FIX_PATCH + "```\n");
    expect((await notes.read(applied!.id)).body).toContain("## Files\n\n- M cart.mjs\n");
    await ledger.close();
  });
});
