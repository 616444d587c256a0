import { z } from "zod";
import { applyPatch, type ApplyPatchResult } from "../patch/apply-patch.ts";
import type { ReadRecord } from "../patch/hash-guard.ts";
import { defineTool } from "./define-tool.ts";

export const applyPatchTool = defineTool({
  name: "apply_patch",
  description: [
    "Edit files with a patch in this format (paths relative to the workspace root):",
    "*** Begin Patch",
    "*** Update File: src/app.ts",
    "@@ function total(items) {",
    " unchanged context line",
    "-line to remove",
    "+line to add",
    "*** Add File: src/new.ts",
    "+every line of the new file",
    "*** Delete File: src/old.ts",
    "*** End Patch",
    "Read a file in full with read_file before you update or delete it: a file you have not seen whole, " +
      "or that changed since you saw it, is refused. Include 3 unchanged lines around each change.",
  ].join("\n"),
  effect: "write",
  schema: z.object({
    patch: z.string().describe("The whole patch, from *** Begin Patch to *** End Patch"),
  }),
  async execute(args, context) {
    const record = context.readRecord;
    const result = await applyPatch(args.patch, {
      cwd: context.cwd,
      // The harness, not the model, supplies the precondition: the hash of
      // what the agent last saw. Without a record the agent has seen nothing.
      expect: (path) => record?.lastSeen(path),
      requireRead: true,
    });
    if (record) rememberWrites(record, result);
    return {
      ok: result.success,
      content: `${summarizePatchResult(result)}\n${JSON.stringify(result)}`,
      code: result.failures[0]?.code,
      patch: result,
    };
  },
});

/**
 * The agent has seen what it wrote: recording the new hashes lets it patch
 * the same file again without re-reading it.
 */
function rememberWrites(record: ReadRecord, result: ApplyPatchResult): void {
  for (const change of result.changed) {
    if (change.sha256 === undefined) record.forget(change.path);
    else record.record(change.path, change.sha256);
  }
}

const LETTER = { add: "A", update: "M", delete: "D" } as const;

/** One line a person or a model can take in at a glance; the JSON after it has the details. */
export function summarizePatchResult(result: ApplyPatchResult): string {
  const changed = result.changed.map((change) => `${LETTER[change.op]} ${change.path}`).join(", ");
  const failed = result.failures
    .map((failure) => `${failure.path || "patch"}: ${failure.code}`)
    .join(", ");
  if (result.success) {
    return `Patch applied: ${changed}. What you wrote counts as read: you can patch these files again without re-reading them.`;
  }
  return `Patch not applied, no file changed. Failed: ${failed}. Follow each failure's hint, then send the patch again.`;
}
