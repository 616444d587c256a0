import { z } from "zod";
import { applyPatch, type ApplyPatchResult } from "../patch/apply-patch.ts";
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
    "Read a file with read_file before you change it, and include 3 unchanged lines around each change.",
  ].join("\n"),
  effect: "write",
  schema: z.object({
    patch: z.string().describe("The whole patch, from *** Begin Patch to *** End Patch"),
  }),
  async execute(args, context) {
    const result = await applyPatch(args.patch, { cwd: context.cwd });
    return {
      ok: result.success,
      content: `${summarizePatchResult(result)}\n${JSON.stringify(result)}`,
      code: result.failures[0]?.code,
      patch: result,
    };
  },
});

const LETTER = { add: "A", update: "M", delete: "D" } as const;

/** One line a person or a model can take in at a glance; the JSON after it has the details. */
export function summarizePatchResult(result: ApplyPatchResult): string {
  const changed = result.changed.map((change) => `${LETTER[change.op]} ${change.path}`).join(", ");
  const failed = result.failures
    .map((failure) => `${failure.path || "patch"}: ${failure.code}`)
    .join(", ");
  if (result.success) {
    return `Patch applied: ${changed}.`;
  }
  return `Patch not applied, no file changed. Failed: ${failed}. Follow each failure's hint, then send the patch again.`;
}
