import { createInterface } from "node:readline/promises";
import { color } from "@build-agent/shared/terminal";
import { createApprover, type Approver } from "./approval.ts";
import type { CtrlC } from "./ctrl-c.ts";
import { summaryLines } from "./run-summary.ts";
import { runTask, type TaskOptions, type TaskRun } from "./run-task.ts";
import type { TerminalUi } from "./terminal-ui.ts";

export interface OneShotOptions extends Omit<TaskOptions, "approver" | "signal" | "events"> {
  yes: boolean;
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
      approver: terminalApprover(options.yes, ui),
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

/** Asks on the terminal, opening stdin only for the question, so a one-shot run never waits on it otherwise. */
export function terminalApprover(yes: boolean, ui: TerminalUi): Approver {
  return createApprover({
    yes,
    interactive: process.stdin.isTTY === true && process.stdout.isTTY === true,
    // readline redraws the line it asks on, so the UI ends the model's streamed text first.
    ask: (question, signal) =>
      ui.question(async () => {
        const rl = createInterface({ input: process.stdin, output: process.stdout });
        // In a terminal readline swallows Ctrl-C; pass it on, so it still stops the run.
        rl.on("SIGINT", () => process.kill(process.pid, "SIGINT"));
        try {
          return await rl.question(question, { signal });
        } catch {
          return ""; // aborted: no answer is a no
        } finally {
          rl.close();
        }
      }),
  });
}
