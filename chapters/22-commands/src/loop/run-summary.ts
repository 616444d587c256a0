import { relative } from "node:path";
import type { CommandEvent } from "../ledger/ledger-events.ts";
import type { RunLedger } from "../ledger/run-ledger.ts";
import type { NoteMeta } from "../notes/note.ts";
import { visible } from "../terminal/visible-text.ts";
import type { LoopOutcome } from "./agent-loop.ts";

const STATUS_LETTER = { added: "A", modified: "M", deleted: "D" } as const;

/**
 * What a person needs after a run, taken from the ledger rather than from what
 * the model claims: how it ended, which files really changed, the notes left
 * behind, where the full record is, what it cost, and how to take it back.
 */
export function summaryLines(
  outcome: Pick<LoopOutcome, "reason" | "message">,
  ledger: RunLedger,
  notes: readonly NoteMeta[],
): string[] {
  const changed = ledger.changedFiles();
  const usage = ledger.usage();
  const calls = usage.model_calls === 1 ? "1 model call" : `${usage.model_calls} model calls`;
  const lines = [
    outcome.reason === "done" ? "result: done" : `result: ${outcome.message ?? outcome.reason}`,
    changed.length === 0
      ? "changed files: none"
      : `changed files: ${changed.map((c) => `${STATUS_LETTER[c.status]} ${c.path}`).join(", ")}`,
    ...commandLines(ledger),
    notes.length === 0
      ? "notes written: none"
      : `notes written: ${notes.map((n) => `${n.id} (${n.title})`).join(", ")}`,
    `ledger: ${relative(ledger.cwd, ledger.path)}`,
    `tokens: ${usage.input_tokens} in, ${usage.output_tokens} out over ${calls}${unreported(usage.unreported_calls)}`,
  ];
  if (changed.length > 0)
    lines.push(`undo: pnpm start -- undo ${ledger.runId} --repo ${ledger.cwd}`);
  // Paths, notes' titles and the stop message come from the model or the workspace.
  return lines.map((line) => visible(line));
}

/** The commands the agent ran, from the ledger, and how each ended. */
function commandLines(ledger: RunLedger): string[] {
  const commands = ledger
    .events()
    .filter((event): event is CommandEvent => event.type === "command");
  if (commands.length === 0) return [];
  const ran = commands.map((c) => {
    const ended = c.timed_out
      ? "timed out"
      : c.exit_code === null
        ? "killed"
        : `exit ${c.exit_code}`;
    return `${c.command} → ${ended}`;
  });
  return [`commands run: ${ran.join("; ")}`];
}

function unreported(count: number): string {
  if (count === 0) return "";
  return count === 1 ? " (1 call did not report usage)" : ` (${count} calls did not report usage)`;
}
