// Chapter 02: a chat with memory: each request carries the whole conversation.
//   pnpm chapter 2                       interactive chat (/reset, /exit, Ctrl-D)
//   pnpm chapter 2 -- "your question"    one turn
//   printf 'q1\nq2\n' | pnpm chapter 2    each piped line is one turn of the same conversation
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import { color, printError } from "@build-agent/shared/terminal";
import { CHAT_HELP, runChat } from "./context/chat.ts";
import { loadConfig } from "./model/config.ts";
import { createModelClient } from "./model/model-client.ts";
import { openEndpoint } from "./model/model-endpoint.ts";
import { visible } from "./terminal/visible-text.ts";

/** Runs the program; returns the exit code. */
export async function main(args: string[]): Promise<number> {
  const config = await loadConfig();
  if (config.kind === "invalid") {
    printError(visible(config.message)); // it may quote a value from .env
    return 1;
  }
  const note = (line: string) => process.stderr.write(color.dim(line) + "\n");
  if (config.kind === "offline") note(config.notice);

  const interactive = args.length === 0 && process.stdin.isTTY === true;
  const readline =
    args.length === 0
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

  const endpoint = await openEndpoint(config);
  try {
    if (interactive) note(`chat with memory; ${CHAT_HELP}`);
    const code = await runChat({
      client: createModelClient(endpoint),
      endpoint,
      lines: readline ?? [args.join(" ")],
      write: (text) => process.stdout.write(text),
      note,
      interactive,
      prompt: interactive ? () => readline?.prompt() : undefined,
      onAbortable: (abort) => (abortAnswer = abort),
    });
    if (interactive) process.stdout.write("\n"); // leave the shell prompt on a line of its own
    return interrupted ? 130 : code;
  } finally {
    process.off("SIGINT", onInterrupt);
    readline?.close();
    await endpoint.close();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv.slice(2));
}
