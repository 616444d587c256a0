// Chapter 18: the Agent Loop runs model and tools until the model gives its answer.
//   pnpm chapter 18 -- "what to change" [--repo PATH] [--max-steps N]
//   pnpm chapter 18 -- --print-prompt [--repo PATH]
//   pnpm chapter 18 -- undo [RUN_ID] [--repo PATH]
// Without --repo a task works on a scratch copy of the demo repository (kept, so you can look,
// and undo), and undo works on the folder you started pnpm in.
import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { copyDemoRepo } from "@build-agent/shared/demo-repo";
import { color, printError } from "@build-agent/shared/terminal";
import { loadConfig } from "./model/config.ts";
import { ContextBudgetError } from "./context/context-budget.ts";
import { startConversation } from "./context/conversation.ts";
import { createModelClient } from "./model/model-client.ts";
import { openEndpoint } from "./model/model-endpoint.ts";
import { visible } from "./terminal/visible-text.ts";
import type { RunLedger } from "./ledger/run-ledger.ts";
import { collectRunChanges, formatRunChange } from "./patch/run-changes.ts";
import { runOneShot } from "./loop/one-shot.ts";
import { TerminalUi } from "./loop/terminal-ui.ts";
import { agentTools } from "./loop/agent-tools.ts";
import { printPrompt } from "./prompts/print-prompt.ts";
import { buildSystemPrompt } from "./prompts/system-prompt.ts";
import { UndoRefusedError, describeUndo, undoRun } from "./ledger/undo.ts";

const USAGE =
  'usage: pnpm chapter 18 -- "what to change" [--repo PATH] [--max-steps N]\n' +
  "       pnpm chapter 18 -- --print-prompt [--repo PATH]\n" +
  "       pnpm chapter 18 -- undo [RUN_ID] [--repo PATH]";
const DEFAULT_TASK = "The total with a coupon is wrong. Find the bug and fix it.";
/** Model calls per task: plenty for a real task, and a model that never stops is stopped. */
const DEFAULT_MAX_STEPS = 40;

/** Runs the program; returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  let args: CommandLine;
  try {
    args = parseCommandLine(argv);
  } catch (error) {
    printError(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (args.repo !== undefined && !(await isFolder(args.repo))) {
    printError(`--repo ${args.repo}: no such folder; pass the folder of a repository\n${USAGE}`);
    return 2;
  }
  if (args.kind === "undo") return undo(args.repo, args.runId);
  if (args.kind === "print-prompt") {
    await printPrompt(args.repo ?? process.env.INIT_CWD ?? process.cwd(), { tools: agentTools() });
    return 0;
  }
  const config = await loadConfig();
  if (config.kind === "invalid") {
    printError(visible(config.message)); // it may quote a value from .env
    return 1;
  }
  if (config.kind === "offline") process.stderr.write(color.dim(config.notice) + "\n");

  const workspace = args.repo ?? (await copyDemoRepo());
  process.stderr.write(
    color.dim(
      `workspace: ${workspace}${args.repo ? "" : " (scratch copy of the demo repository)"}`,
    ) + "\n",
  );
  const endpoint = await openEndpoint(config, "fix-bug");
  try {
    const { code, run } = await runOneShot({
      workspace,
      task: args.task,
      conversation: startConversation(await buildSystemPrompt(workspace)),
      client: createModelClient(endpoint),
      model: endpoint.model,
      maxRetries: endpoint.maxRetries,
      contextTokens: config.contextTokens,
      maxSteps: args.maxSteps,
      ui: new TerminalUi(),
    });
    await showChanges(workspace, run.ledger.runId);
    const { input_tokens, output_tokens, model_calls } = run.ledger.usage();
    const usage = `tokens: ${input_tokens} in, ${output_tokens} out over ${model_calls} model calls`;
    process.stderr.write(color.dim(usage) + "\n");
    if (!args.repo)
      process.stderr.write(color.dim(`see for yourself: cd ${workspace} && node check.mjs`) + "\n");
    process.stderr.write(color.dim(ledgerLine(run.ledger, workspace)) + "\n");
    return code;
  } catch (error) {
    // Even the task alone does not fit the context budget (chapter 06): nothing can be sent.
    if (!(error instanceof ContextBudgetError)) throw error;
    printError(error.message);
    return 1;
  } finally {
    await endpoint.close();
  }
}

/** Where the run's record is, what it holds, and how to take it back. */
function ledgerLine(ledger: RunLedger, workspace: string): string {
  const changed = ledger.changedFiles().length;
  const line = `run ${ledger.runId}: ${changed} file(s) changed, ${ledger.toolCalls().length} tool call(s); ledger ${ledger.path}`;
  return changed === 0
    ? line
    : `${line}\nundo it: pnpm chapter 18 -- undo ${ledger.runId} --repo ${workspace}`;
}

async function undo(repo: string | undefined, runId: string | undefined): Promise<number> {
  const workspace = repo ?? process.env.INIT_CWD ?? process.cwd(); // where the user typed it (pnpm)
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

type CommandLine =
  | { kind: "task"; task: string; repo: string | undefined; maxSteps: number }
  | { kind: "undo"; runId: string | undefined; repo: string | undefined }
  | { kind: "print-prompt"; repo: string | undefined };

function parseCommandLine(argv: string[]): CommandLine {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      repo: { type: "string" },
      "max-steps": { type: "string" },
      "print-prompt": { type: "boolean" },
    },
    allowPositionals: true,
  });
  // pnpm runs scripts from the monorepo root; INIT_CWD is where the person typed the command.
  const repo =
    values.repo === undefined ? undefined : resolve(process.env.INIT_CWD ?? "", values.repo);
  if (values["print-prompt"]) return { kind: "print-prompt", repo };
  if (positionals[0] === "undo") {
    if (positionals.length > 2) throw new Error("undo takes at most one RUN_ID.");
    return { kind: "undo", runId: positionals[1], repo };
  }
  const task = positionals.join(" ").trim();
  return {
    kind: "task",
    task: task === "" ? DEFAULT_TASK : task,
    repo,
    maxSteps: wholeNumber(values["max-steps"], "--max-steps", DEFAULT_MAX_STEPS),
  };
}

async function isFolder(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() === true;
}

function wholeNumber(text: string | undefined, flag: string, fallback: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) {
    throw new Error(`${flag} must be a whole number of at least 1, got "${text}"`);
  }
  return value;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv.slice(2));
}
