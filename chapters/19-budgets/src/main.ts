// Chapter 19: budgets end a run that does not converge, and Ctrl-C stops one cleanly.
//   pnpm chapter 19 -- [--repo PATH] [--max-steps N] [--max-tokens N] [--max-time T] "task"
//   pnpm chapter 19 -- --print-prompt [--repo PATH]
//   pnpm chapter 19 -- undo [RUN_ID] [--repo PATH]
// Without --repo a task works on a scratch copy of the demo repository (kept, so you can look,
// and undo), and undo works on the folder you started pnpm in.
import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { copyDemoRepo } from "@build-agent/shared/demo-repo";
import { color, printError } from "@build-agent/shared/terminal";
import { loadConfig } from "./model/config.ts";
import { startConversation } from "./context/conversation.ts";
import { createModelClient } from "./model/model-client.ts";
import { openEndpoint } from "./model/model-endpoint.ts";
import { visible } from "./terminal/visible-text.ts";
import { collectRunChanges, formatRunChange } from "./patch/run-changes.ts";
import { parseCommandLine, USAGE, UsageError, type Command } from "./loop/cli-args.ts";
import { CtrlC } from "./loop/ctrl-c.ts";
import { runOneShot } from "./loop/one-shot.ts";
import { TerminalUi } from "./loop/terminal-ui.ts";
import { agentTools } from "./loop/agent-tools.ts";
import { printPrompt } from "./prompts/print-prompt.ts";
import { buildSystemPrompt } from "./prompts/system-prompt.ts";
import { describeUndo, undoRun, UndoRefusedError } from "./ledger/undo.ts";

const DEFAULT_TASK = "The total with a coupon is wrong. Find the bug and fix it.";

/** Runs the program; returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  let command: Command;
  try {
    command = parseCommandLine(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    printError(`${error.message}\n${USAGE}`);
    return 2;
  }
  if (command.kind === "help") {
    process.stdout.write(USAGE + "\n");
    return 0;
  }
  // pnpm runs scripts from the repository root and passes the folder the user typed in as INIT_CWD.
  const here = process.env.INIT_CWD ?? process.cwd();
  const workspace = resolve(here, command.repo ?? ".");
  if (!(await isDirectory(workspace))) {
    printError(`--repo ${workspace} is not a folder: point --repo at the repository to work on`);
    return 2;
  }
  if (command.kind === "print-prompt") {
    await printPrompt(workspace, { tools: agentTools() });
    return 0;
  }
  if (command.kind === "undo") return undo(workspace, command.runId);

  const config = await loadConfig();
  if (config.kind === "invalid") {
    printError(visible(config.message)); // it may quote a value from .env
    return 1;
  }
  const ui = new TerminalUi();
  // First Ctrl-C: stop the current step and end the run cleanly. Second: leave at once.
  const ctrlC = new CtrlC(
    () => ui.notice("stopping… (press Ctrl-C again to quit at once)"),
    () => process.exit(130),
  );
  if (config.kind === "offline") ui.notice(config.notice);

  const repo = command.repo === undefined ? await copyDemoRepo() : workspace;
  ui.notice(`workspace: ${repo}${command.repo ? "" : " (scratch copy of the demo repository)"}`);
  const endpoint = await openEndpoint(config, "fix-bug");
  try {
    const { code, run } = await runOneShot({
      workspace: repo,
      task: command.task ?? DEFAULT_TASK,
      conversation: startConversation(await buildSystemPrompt(repo)),
      client: createModelClient(endpoint),
      model: endpoint.model,
      maxRetries: endpoint.maxRetries,
      contextTokens: config.contextTokens,
      budgets: command.budgets,
      ui,
      ctrlC,
    });
    await showChanges(repo, run.ledger.runId);
    return code;
  } finally {
    await endpoint.close();
  }
}

async function undo(workspace: string, runId: string | undefined): Promise<number> {
  try {
    process.stdout.write(describeUndo(await undoRun(workspace, runId)) + "\n");
    return 0;
  } catch (error) {
    if (!(error instanceof UndoRefusedError)) throw error;
    printError(visible(error.message, { lines: true }));
    return 1;
  }
}

/** Every file the run changed, as a coloured diff with its new hash. */
async function showChanges(workspace: string, runId: string): Promise<void> {
  const changes = await collectRunChanges(workspace, runId);
  if (changes.length === 0) return;
  process.stdout.write(color.bold(`\nchanged in this run (${changes.length} file(s)):`) + "\n");
  for (const change of changes) process.stdout.write(formatRunChange(change) + "\n");
  process.stderr.write(color.dim(`backups: ${workspace}/.agent/backups/${runId}`) + "\n");
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv.slice(2));
}
