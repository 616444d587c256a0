import { z } from "zod";
import { applyPatch, type ApplyPatchResult, type PlannedFile } from "../patch/apply-patch.ts";
import type { RunLedger } from "../ledger/run-ledger.ts";
import { writePatchNote } from "../notes/patch-notes.ts";
import { defineTool } from "./define-tool.ts";

export const applyPatchTool = defineTool({
  name: "apply_patch",
  // The system prompt teaches the format, with wrong and right examples (src/prompts/), so the
  // description only points there: repeating the format would cost its tokens on every request.
  description:
    "Create, change, move or delete files with one patch in the format of the system prompt.",
  effect: "write",
  // Nor does `patch` describe itself: rule 2 of the prompt says how a patch begins and ends.
  schema: z.object({ patch: z.string() }),
  async execute(args, context) {
    const { ledger, notes } = context;
    let files: PlannedFile[] | undefined;
    const result = await applyPatch(args.patch, {
      cwd: context.cwd,
      // The harness, not the model, supplies the precondition: the hash of
      // what the agent last saw, from the run's ledger. Without a ledger the
      // agent has seen nothing.
      expect: (path) => ledger?.lastKnownHash(path),
      requireRead: true,
      runId: ledger?.runId,
      // One parse, one plan: the approval reads it, and the diff shows its texts.
      review: async (plan) => {
        await context.reviewPatch?.(plan);
        files = plan.files;
      },
    });
    if (ledger) explainCommandChanges(ledger, result);
    if (ledger) await recordWrites(ledger, result);
    if (notes && result.failures.length + result.changed.length > 0) {
      await writePatchNote(notes, {
        userInput: ledger?.start.task ?? "",
        patch: args.patch,
        outcome: result,
      });
    }
    return {
      ok: result.success,
      content: `${summarizePatchResult(result)}\n${JSON.stringify(result)}`,
      code: result.failures[0]?.code,
      patch: result,
      files,
    };
  },
});

/**
 * Every write goes into the ledger with its hashes before and after. The
 * agent has seen what it wrote, so it may patch the same file again without
 * re-reading it; a move deletes its source.
 */
async function recordWrites(ledger: RunLedger, result: ApplyPatchResult): Promise<void> {
  for (const change of result.changed) {
    if (change.from !== undefined) {
      await ledger.recordWrite(change.from, { before: change.previous_sha256 });
      await ledger.recordWrite(change.path, { after: change.sha256 });
    } else {
      await ledger.recordWrite(change.path, {
        before: change.previous_sha256,
        after: change.sha256,
      });
    }
  }
}

/**
 * A command's changes make the model's read of a file stale (RunLedger's applyCommand), so the
 * guard answers not_read. "Not read in this run" would puzzle a model that did read it: name
 * the command that changed it instead.
 */
function explainCommandChanges(ledger: RunLedger, result: ApplyPatchResult): void {
  for (const failure of result.failures) {
    const by = failure.code === "not_read" ? ledger.changedByCommand(failure.path) : undefined;
    if (by === undefined) continue;
    failure.message = `${failure.path} was changed by command ${by.n} (\`${by.command}\`) and has not been read in full since; read it again before patching it.`;
  }
}

const LETTER = { add: "A", update: "M", delete: "D", move: "R" } as const;

/** One line a person or a model can take in at a glance; the JSON after it has the details. */
export function summarizePatchResult(result: ApplyPatchResult): string {
  const changed = result.changed.map((change) => `${LETTER[change.op]} ${change.path}`).join(", ");
  const failed = result.failures
    .map((failure) => `${failure.path || "patch"}: ${failure.code}`)
    .join(", ");
  if (result.success) {
    return `Patch applied: ${changed}. What you wrote counts as read: you can patch these files again without re-reading them.`;
  }
  if (result.files_changed > 0) {
    return `Patch partly applied: ${changed} changed; failed: ${failed}. Fix the failures (see hint) and apply remaining_patch.`;
  }
  return `Patch not applied, no file changed. Failed: ${failed}. Follow each failure's hint, then send the patch again.`;
}
