// Chapter 10: the model can change files with apply_patch, even when its patch is slightly off.
//   pnpm chapter 10 -- "what to change" [--repo PATH]
// Without --repo it works on a scratch copy of the demo repository (kept, so you can look).
import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { copyDemoRepo } from "@build-agent/shared/demo-repo";
import { color, printError } from "@build-agent/shared/terminal";
import { loadConfig } from "./model/config.ts";
import { ContextBudgetError } from "./context/context-budget.ts";
import { addMessages, startConversation } from "./context/conversation.ts";
import { createModelClient } from "./model/model-client.ts";
import { openEndpoint } from "./model/model-endpoint.ts";
import { visible } from "./terminal/visible-text.ts";
import { describeModelError, isAbort } from "./model/model-errors.ts";
import { toolCallLine } from "./tools/tool-call-line.ts";
import { answerWithTools, DEFAULT_MAX_ROUNDS } from "./tools/tool-round-trip.ts";
import { applyPatchTool } from "./tools/apply-patch-tool.ts";
import type { ToolCallRequest, ToolCallResult } from "./tools/run-tool-call.ts";
import { workspaceTools } from "./tools/workspace-tools.ts";

const USAGE = 'usage: pnpm chapter 10 -- "what to change" [--repo PATH]';
const DEFAULT_TASK = "The total with a coupon is wrong. Find the bug and fix it.";

export const SYSTEM_PROMPT =
  "You are a coding assistant working in a software repository, the workspace. " +
  "Use the tools to look at files; read a file in full with read_file before you change it. " +
  "Make the smallest change that does the job. Paths are relative to the workspace root. " +
  "When done, say briefly what you changed.";

/** Runs the program; returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  let args: { task: string; repo: string | undefined };
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
  const controller = new AbortController();
  const onSigint = () => controller.abort();
  process.once("SIGINT", onSigint);
  let lineOpen = false; // streamed text not yet ended by a newline
  const endLine = () => {
    if (lineOpen) process.stdout.write("\n");
    lineOpen = false;
  };
  try {
    const result = await answerWithTools({
      client: createModelClient(endpoint),
      model: endpoint.model,
      conversation: addMessages(startConversation(SYSTEM_PROMPT), {
        role: "user",
        content: args.task,
      }),
      tools: [...workspaceTools, applyPatchTool],
      context: { cwd: workspace, signal: controller.signal },
      contextTokens: config.contextTokens,
      maxRetries: endpoint.maxRetries,
      onText: (text) => {
        process.stdout.write(visible(text, { lines: true }));
        lineOpen = !text.endsWith("\n");
      },
      onToolCall: (call, outcome) => {
        endLine();
        process.stdout.write(describeToolCall(call, outcome) + "\n");
      },
      onNotice: (line) => {
        endLine();
        process.stderr.write(color.dim(visible(line, { lines: true })) + "\n");
      },
    });
    endLine();
    if (result.answer === null) {
      printError(
        `stopped after ${DEFAULT_MAX_ROUNDS} model calls: the model still wanted more tools. Ask for a smaller change.`,
      );
      return 1;
    }
    const usage = result.usage
      ? `tokens: ${result.usage.prompt} in, ${result.usage.completion} out over ${result.rounds} model calls`
      : "tokens: not reported by the server";
    process.stderr.write(color.dim(usage) + "\n");
    if (!args.repo)
      process.stderr.write(color.dim(`see for yourself: cd ${workspace} && node check.mjs`) + "\n");
    return 0;
  } catch (error) {
    endLine();
    if (isAbort(error)) {
      process.stderr.write("aborted\n");
      return 130;
    }
    if (error instanceof ContextBudgetError) {
      printError(error.message);
      return 1;
    }
    printError(visible(describeModelError(error, endpoint), { lines: true }));
    return 1;
  } finally {
    process.off("SIGINT", onSigint);
    await endpoint.close();
  }
}

/** apply_patch's first line already says what happened; other tools get the usual line. */
function describeToolCall(call: ToolCallRequest, outcome: ToolCallResult): string {
  // A patch answers with its summary line, applied or not; an error thrown before it does not.
  if (call.function.name !== "apply_patch" || !outcome.patch) return toolCallLine(call, outcome);
  const summary = outcome.content.split("\n")[0] ?? "";
  return `${color.cyan("→ apply_patch")}  ${(outcome.ok ? color.green : color.red)(visible(summary))}`;
}

function parseCommandLine(argv: string[]): { task: string; repo: string | undefined } {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { repo: { type: "string" } },
    allowPositionals: true,
  });
  const task = positionals.join(" ").trim();
  // pnpm runs scripts from the monorepo root; INIT_CWD is where the person typed the command.
  const repo =
    values.repo === undefined ? undefined : resolve(process.env.INIT_CWD ?? "", values.repo);
  return { task: task === "" ? DEFAULT_TASK : task, repo };
}

async function isFolder(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() === true;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv.slice(2));
}
