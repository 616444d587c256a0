import { color } from "@build-agent/shared/terminal";
import { visible } from "../terminal/visible-text.ts";
import { runTask, type TaskOptions, type TaskRun } from "./run-task.ts";
import type { TerminalUi } from "./terminal-ui.ts";

export interface OneShotOptions extends Omit<TaskOptions, "signal" | "events"> {
  ui: TerminalUi;
}

/** One task, then exit: 0 when the agent finished, 130 after Ctrl-C, 1 for any other stop. */
export async function runOneShot(options: OneShotOptions): Promise<{ code: number; run: TaskRun }> {
  const { ui } = options;
  // Ctrl-C aborts what is in flight (the model call or a tool), and the loop ends the run cleanly.
  const controller = new AbortController();
  const onSigint = () => controller.abort();
  process.once("SIGINT", onSigint);
  try {
    const run = await runTask({ ...options, signal: controller.signal, events: ui.events() });
    ui.endLine();
    const { reason, message } = run.outcome;
    ui.line(
      color.dim(reason === "done" ? "result: done" : `result: ${visible(message ?? reason)}`),
    );
    return { code: reason === "done" ? 0 : reason === "aborted" ? 130 : 1, run };
  } finally {
    process.off("SIGINT", onSigint);
  }
}
