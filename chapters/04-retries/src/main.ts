// Chapter 04: the first agent, on a client that survives a flaky network: retries and a stall timer.
//   pnpm chapter 4                           offline: the demo task, on a scratch copy of the demo
//   pnpm chapter 4 -- "task or question" [--repo PATH]   one turn
//   pnpm chapter 4 [-- --repo PATH]          with a model: interactive chat (/reset, /exit, Ctrl-D)
//   printf 'q1\nq2\n' | pnpm chapter 4       each piped line is one turn of the same conversation
// Without --repo it works on a scratch copy of the demo repository (kept, so you can look).
import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { copyDemoRepo, runDemoCheck } from "@build-agent/shared/demo-repo";
import { color, printError } from "@build-agent/shared/terminal";
import { CHAT_HELP, runChat } from "./context/chat.ts";
import { loadConfig } from "./model/config.ts";
import { createModelClient } from "./model/model-client.ts";
import { openEndpoint } from "./model/model-endpoint.ts";
import { visible } from "./terminal/visible-text.ts";
import { workspaceTools } from "./tools/workspace-tools.ts";

const USAGE = 'usage: pnpm chapter 4 -- "task or question" [--repo PATH]';
/** What the offline demo asks when you give it nothing: the demo repository's known bug. */
export const DEMO_TASK = "The total with a coupon is wrong. Find the bug and fix it.";

export const SYSTEM_PROMPT =
  "You are a coding assistant working in a software repository, the workspace. " +
  "Use the tools to look at its files before you answer; do not guess what a file contains. " +
  "Read a file before you change it, and make the smallest change that does the job. " +
  "Paths are relative to the workspace root. Answer concisely.";

/** Runs the program; returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  let args: { question: string; repo: string | undefined };
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
  const note = (line: string) => process.stderr.write(color.dim(line) + "\n");
  if (config.kind === "offline") note(config.notice);

  // Offline there is no one to chat with: the scripted demo gets its task.
  if (args.question === "" && config.kind === "offline") args.question = DEMO_TASK;
  const workspace = args.repo ?? (await copyDemoRepo());
  note(`workspace: ${workspace}${args.repo ? "" : " (scratch copy of the demo repository)"}`);
  const interactive = args.question === "" && process.stdin.isTTY === true;
  const readline =
    args.question === ""
      ? createInterface({
          input: process.stdin,
          // Only a terminal gets the prompt and line editing; piped input is read as plain lines.
          ...(interactive ? { output: process.stdout, terminal: true } : { terminal: false }),
        })
      : undefined;
  // Ctrl-C stops the answer in progress; at the prompt (or a second time) it ends the chat.
  let abortAnswer: (() => void) | undefined;
  let interrupted = false;
  const onInterrupt = () => {
    if (abortAnswer !== undefined) return abortAnswer();
    interrupted = true;
    readline?.close();
  };
  readline?.on("SIGINT", onInterrupt); // a terminal readline swallows Ctrl-C and reports it here
  process.on("SIGINT", onInterrupt);

  const endpoint = await openEndpoint(config, "fix-bug-edit");
  try {
    if (interactive) note(`chat about the workspace; ${CHAT_HELP}`);
    const code = await runChat({
      client: createModelClient(endpoint),
      endpoint,
      tools: workspaceTools,
      workspace,
      lines: readline ?? [args.question],
      write: (text) => process.stdout.write(text),
      note,
      interactive,
      prompt: interactive ? () => readline?.prompt() : undefined,
      onAbortable: (abort) => (abortAnswer = abort),
      systemPrompt: SYSTEM_PROMPT,
    });
    if (interactive) process.stdout.write("\n"); // leave the shell prompt on a line of its own
    if (!args.repo) await reportDemoCheck(workspace, note);
    return interrupted ? 130 : code;
  } finally {
    process.off("SIGINT", onInterrupt);
    readline?.close();
    await endpoint.close();
  }
}

/** On the scratch copy, the demo repository's own check says whether the bug is gone. */
async function reportDemoCheck(workspace: string, note: (line: string) => void): Promise<void> {
  const check = await runDemoCheck(workspace);
  const last = check.output.trim().split("\n").at(-1) ?? "";
  note(`check: node check.mjs → ${check.ok ? last : "fails"}`);
  note(`see for yourself: cd ${workspace} && node check.mjs`);
}

/** No question means a chat (or, offline, the demo task). */
function parseCommandLine(argv: string[]): { question: string; repo: string | undefined } {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { repo: { type: "string" } },
    allowPositionals: true,
  });
  // pnpm runs scripts from the monorepo root; INIT_CWD is where the person typed the command.
  const repo =
    values.repo === undefined ? undefined : resolve(process.env.INIT_CWD ?? "", values.repo);
  return { question: positionals.join(" ").trim(), repo };
}

async function isFolder(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() === true;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv.slice(2));
}
