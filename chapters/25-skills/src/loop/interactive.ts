import { createInterface, type Interface } from "node:readline";
import { color } from "@build-agent/shared/terminal";
import type { Conversation } from "../context/conversation.ts";
import { createCommandApprover } from "../commands/command-approval.ts";
import type { CommandRules } from "../tools/run-command-tool.ts";
import { createApprover } from "./approval.ts";
import type { CtrlC } from "./ctrl-c.ts";
import { summaryLines } from "./run-summary.ts";
import { runTask, type TaskOptions } from "./run-task.ts";
import type { TerminalUi } from "./terminal-ui.ts";

export interface SessionOptions extends Omit<
  TaskOptions,
  "task" | "conversation" | "approver" | "signal" | "events" | "commands"
> {
  conversation: Conversation;
  yes: boolean;
  /** What run_command may run; the question for any other command is asked at the prompt. */
  commands?: CommandRules;
  ui: TerminalUi;
  ctrlC: CtrlC;
  input?: NodeJS.ReadableStream;
  output?: NodeJS.WritableStream;
}

export const SESSION_HELP = "Type a task and press Enter. /exit (or Ctrl-D) ends the session.";

/**
 * The interactive session: each line is a task, run to its end before the
 * next prompt. The conversation carries over, so "now add a test for it"
 * knows what "it" is; each task still gets its own run, ledger and budgets.
 */
export async function runSession(options: SessionOptions): Promise<number> {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const interactive = "isTTY" in input && input.isTTY === true;
  const rl = createInterface({ input, output, terminal: interactive });
  const { ui, ctrlC } = options;
  let running = false;
  // In a terminal, readline turns Ctrl-C into its own event instead of a signal.
  rl.on("SIGINT", () => (running ? ctrlC.press() : rl.close()));
  const stopListening = ctrlC.listen();
  const asking = {
    yes: options.yes,
    interactive,
    // readline redraws the line it asks on, so the UI ends the model's streamed text first.
    ask: (question: string, signal: AbortSignal) => ui.question(() => ask(rl, question, signal)),
  };
  const approver = createApprover(asking);
  const commands = options.commands && {
    ...options.commands,
    approver: createCommandApprover(asking),
  };

  let conversation = options.conversation;
  ui.line(color.dim(SESSION_HELP));
  rl.setPrompt("> ");
  rl.prompt();
  let exited = false;
  try {
    for await (const raw of rl) {
      const task = raw.trim();
      if (task === "/exit") {
        exited = true;
        break;
      }
      if (task !== "") {
        running = true;
        const run = await runTask({
          ...options,
          task,
          conversation,
          approver,
          commands,
          signal: ctrlC.nextRun(),
          events: ui.events(),
        }).finally(() => (running = false));
        conversation = run.outcome.conversation;
        ui.endLine();
        for (const line of summaryLines(run.outcome, run.ledger, run.notes)) {
          ui.line(color.dim(line));
        }
      }
      rl.prompt();
    }
  } finally {
    stopListening();
    rl.close();
  }
  // Ctrl-D or Ctrl-C at the prompt leave the cursor after "> "; the shell's prompt gets its own line.
  if (!exited && interactive) output.write("\n");
  return 0;
}

async function ask(rl: Interface, question: string, signal: AbortSignal): Promise<string> {
  return new Promise((resolve) => {
    const onAbort = () => resolve("");
    signal.addEventListener("abort", onAbort, { once: true });
    rl.question(question, { signal }, (answer) => {
      signal.removeEventListener("abort", onAbort);
      resolve(answer);
    });
  });
}
