// Chapter 01: ask a model one question and stream the answer.
//   pnpm chapter 1 -- "your question"      or      echo "your question" | pnpm chapter 1
import { pathToFileURL } from "node:url";
import { color, printError } from "@build-agent/shared/terminal";
import { loadConfig } from "./model/config.ts";
import { createModelClient, streamChat } from "./model/model-client.ts";
import { openEndpoint } from "./model/model-endpoint.ts";
import { describeModelError, isAbort } from "./model/model-errors.ts";
import type { ChatResult } from "./model/stream-assembler.ts";
import { visible } from "./terminal/visible-text.ts";

const USAGE =
  'usage: pnpm chapter 1 -- "your question"   (or pipe it: echo "your question" | pnpm chapter 1)';

/** Runs the program; returns the exit code. */
export async function main(args: string[]): Promise<number> {
  const question = (args.length > 0 ? args.join(" ") : await readPipedStdin()).trim();
  if (question === "") {
    printError(USAGE);
    return 1;
  }
  const config = await loadConfig();
  if (config.kind === "invalid") {
    printError(visible(config.message)); // it may quote a value from .env
    return 1;
  }
  if (config.kind === "offline") process.stderr.write(color.dim(config.notice) + "\n");

  const endpoint = await openEndpoint(config);
  const controller = new AbortController();
  const onSigint = () => controller.abort();
  process.once("SIGINT", onSigint);
  let shownText = false;
  try {
    const result = await streamChat({
      client: createModelClient(endpoint),
      model: endpoint.model,
      messages: [{ role: "user", content: question }],
      signal: controller.signal,
      onText: (text) => {
        shownText = true;
        process.stdout.write(visible(text, { lines: true }));
      },
    });
    process.stdout.write("\n");
    process.stderr.write(color.dim(usageLine(result)) + "\n");
    return 0;
  } catch (error) {
    if (shownText) process.stdout.write("\n");
    if (isAbort(error)) {
      process.stderr.write("aborted\n");
      return 130;
    }
    // A server's error message is its text, not ours: written out like the answer.
    printError(visible(describeModelError(error, endpoint), { lines: true }));
    return 1;
  } finally {
    process.off("SIGINT", onSigint);
    await endpoint.close();
  }
}

/** Token usage as one line; a server may not report it, and we say so rather than guess. */
export function usageLine({ usage, finishReason }: ChatResult): string {
  const cut = finishReason === "length" ? " (answer cut off at the model's token limit)" : "";
  if (usage === null) return `tokens: not reported by the server${cut}`;
  return `tokens: ${usage.prompt_tokens} in, ${usage.completion_tokens} out, ${usage.total_tokens} total${cut}`;
}

async function readPipedStdin(): Promise<string> {
  if (process.stdin.isTTY) return "";
  let text = "";
  for await (const chunk of process.stdin) text += String(chunk);
  return text;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv.slice(2));
}
