// Chapter 20: the human in the loop, around the Agent Loop — the usable agent.
//   pnpm start                                     offline demo (no model configured)
//   pnpm start -- --repo PATH "task"               one task, then exit
//   pnpm start -- --repo PATH                      interactive session
//   pnpm start -- undo [RUN_ID]                    undo a run
import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { printError } from "@build-agent/shared/terminal";
import { loadConfig } from "./model/config.ts";
import { startConversation } from "./context/conversation.ts";
import { createModelClient } from "./model/model-client.ts";
import { openEndpoint } from "./model/model-endpoint.ts";
import { visible } from "./terminal/visible-text.ts";
import { parseCommandLine, USAGE, UsageError, type Command } from "./loop/cli-args.ts";
import { CtrlC } from "./loop/ctrl-c.ts";
import { runSession } from "./loop/interactive.ts";
import { runOfflineDemo } from "./loop/offline-demo.ts";
import { runOneShot } from "./loop/one-shot.ts";
import { TerminalUi } from "./loop/terminal-ui.ts";
import { agentTools } from "./loop/agent-tools.ts";
import { printPrompt } from "./prompts/print-prompt.ts";
import { buildSystemPrompt } from "./prompts/system-prompt.ts";
import { describeUndo, undoRun, UndoRefusedError } from "./ledger/undo.ts";

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
    // The tools are priced, never run, so no approval is ever asked for.
    await printPrompt(workspace, { tools: agentTools(async () => "no_terminal") });
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

  if (config.kind === "offline") {
    ui.notice(config.notice);
    if (command.task !== undefined || command.repo !== undefined) {
      printError(
        "the offline model only replays the scripted demo: run `pnpm start` with no arguments to watch it, or configure a model (OPENAI_API_KEY, or OPENAI_BASE_URL and AGENT_MODEL) to work on your repository",
      );
      return 1;
    }
    const endpoint = await openEndpoint(config, "fix-bug");
    try {
      return await runOfflineDemo({ endpoint, contextTokens: config.contextTokens, ui, ctrlC });
    } finally {
      await endpoint.close();
    }
  }

  const endpoint = await openEndpoint(config);
  ui.notice(`model: ${endpoint.model} at ${endpoint.baseURL} · workspace: ${workspace}`);
  const shared = {
    workspace,
    conversation: startConversation(await buildSystemPrompt(workspace)),
    client: createModelClient(endpoint),
    model: endpoint.model,
    maxRetries: endpoint.maxRetries,
    contextTokens: config.contextTokens,
    budgets: command.budgets,
    yes: command.yes,
    ui,
    ctrlC,
  };
  try {
    if (command.task !== undefined) {
      return (await runOneShot({ ...shared, task: command.task })).code;
    }
    return await runSession(shared);
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
