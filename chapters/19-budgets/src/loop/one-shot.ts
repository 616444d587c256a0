import { color } from "@build-agent/shared/terminal";
import type { CtrlC } from "./ctrl-c.ts";
import { summaryLines } from "./run-summary.ts";
import { runTask, type TaskOptions, type TaskRun } from "./run-task.ts";
import type { TerminalUi } from "./terminal-ui.ts";

export interface OneShotOptions extends Omit<TaskOptions, "signal" | "events"> {
  ui: TerminalUi;
  ctrlC: CtrlC;
}

/** One task, then exit: 0 when the agent finished, 130 after Ctrl-C, 1 for any other stop. */
export async function runOneShot(options: OneShotOptions): Promise<{ code: number; run: TaskRun }> {
  const { ui, ctrlC } = options;
  const stopListening = ctrlC.listen();
  try {
    const run = await runTask({
      ...options,
      signal: ctrlC.nextRun(),
      events: ui.events(),
    });
    ui.endLine();
    for (const line of summaryLines(run.outcome, run.ledger, run.notes)) ui.line(color.dim(line));
    const reason = run.outcome.reason;
    return { code: reason === "done" ? 0 : reason === "aborted" ? 130 : 1, run };
  } finally {
    stopListening();
  }
}
