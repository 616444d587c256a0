import { createRequire } from "node:module";
import type * as O200kBase from "gpt-tokenizer/encoding/o200k_base";
import type {
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from "openai/resources/chat/completions";

/**
 * Token counting with o200k_base, the tokenizer of the gpt-4o / gpt-4.1 / o-series models.
 *
 * A chat request is more than its texts: the server wraps each message in markers like
 * `<|start|>role<|message|>content<|end|>`. OpenAI's cookbook ("How to count tokens with
 * tiktoken") documents the overhead below; with it, counts match the API's prompt_tokens for
 * plain messages. Other models use other tokenizers, so for them the count is an estimate,
 * usually within a few percent: good enough for a budget, which should keep headroom anyway.
 */

/** The markers around every message. */
export const TOKENS_PER_MESSAGE = 3;
/** A `name` field costs one token beyond its own text. */
export const TOKENS_PER_NAME = 1;
/** Every reply is primed with `<|start|>assistant<|message|>`. */
export const REPLY_PRIMING_TOKENS = 3;
/**
 * The cookbook has no constant for tool calls; servers render each call as its name plus its JSON
 * arguments inside a few markers. This is our estimate for those markers, not a documented value.
 */
export const TOKENS_PER_TOOL_CALL = 3;

// The tokenizer's tables are 2 MB of JavaScript: loading them takes about 0.3 s and 100 MB, which
// `--help` or `undo` should not pay. So they load at the first count. Counting is synchronous, and
// so is require; an import statement would load them at start.
const require = createRequire(import.meta.url);
let tokenizer: typeof O200kBase | undefined;

function encode(text: string): number[] {
  tokenizer ??= require("gpt-tokenizer/encoding/o200k_base") as typeof O200kBase;
  return tokenizer.encode(text);
}

/**
 * The longest run of spaces, or of anything but spaces, that is encoded in one go. The tokenizer's
 * merging is quadratic in the length of a stretch it cannot split (`=====`, `AAAA`, Chinese text):
 * 200 000 such characters take it most of a minute, so a 1 MB blob in a tool call would freeze the
 * process, and its timers (the run's time budget) and Ctrl-C with it. Longer runs are cut into
 * pieces this long and the pieces' counts added up. No token can span a cut, so the sum may be a
 * little high (313 instead of 312 tokens for 20 000 `=`): the safe side for a budget.
 */
export const MAX_RUN_CHARS = 256;
// A whole run of that length or more. The lookbehind makes a match start only where a run starts,
// so the search reads each character about once.
const LONG_RUN = new RegExp(`(?<!\\S)\\S{${MAX_RUN_CHARS},}|(?<!\\s)\\s{${MAX_RUN_CHARS},}`, "g");

export function countTextTokens(text: string): number {
  let tokens = 0;
  let start = 0;
  for (const run of text.matchAll(LONG_RUN)) {
    tokens += encode(text.slice(start, run.index)).length;
    for (const piece of cutRun(run[0])) tokens += encode(piece).length;
    start = run.index + run[0].length;
  }
  return tokens + encode(text.slice(start)).length;
}

/** A long run in pieces of MAX_RUN_CHARS, never cutting an emoji (a surrogate pair) in two. */
function cutRun(run: string): string[] {
  const pieces: string[] = [];
  for (let start = 0; start < run.length;) {
    let end = Math.min(start + MAX_RUN_CHARS, run.length);
    if (/[\uDC00-\uDFFF]/.test(run[end] ?? "")) end += 1;
    pieces.push(run.slice(start, end));
    start = end;
  }
  return pieces;
}

// fitToBudget counts the whole conversation before every request, so a long run would count the
// same messages again and again. A message is never changed once it is in the conversation
// (conversation.ts builds new lists around the same message objects), so its count is made once
// and kept, keyed by the message object; a WeakMap lets the count go when the message does.
const counted = new WeakMap<object, number>();

function countOnce<T extends object>(value: T, count: (value: T) => number): number {
  let tokens = counted.get(value);
  if (tokens === undefined) {
    tokens = count(value);
    counted.set(value, tokens);
  }
  return tokens;
}

/** Tokens one message adds to a request, markers included. */
export function countMessageTokens(message: ChatCompletionMessageParam): number {
  return countOnce(message, countNewMessage);
}

function countNewMessage(message: ChatCompletionMessageParam): number {
  let tokens =
    TOKENS_PER_MESSAGE + countTextTokens(message.role) + countTextTokens(textOf(message));
  if ("name" in message && message.name !== undefined) {
    tokens += TOKENS_PER_NAME + countTextTokens(message.name);
  }
  if (message.role === "assistant") {
    for (const call of message.tool_calls ?? []) {
      if (call.type !== "function") continue;
      tokens +=
        TOKENS_PER_TOOL_CALL +
        countTextTokens(call.function.name) +
        countTextTokens(call.function.arguments);
    }
  }
  if (message.role === "tool") tokens += countTextTokens(message.tool_call_id);
  return tokens;
}

/** Tokens a request with these messages uses before the model writes a word. */
export function countRequestTokens(messages: readonly ChatCompletionMessageParam[]): number {
  return messages.reduce((sum, message) => sum + countMessageTokens(message), REPLY_PRIMING_TOKENS);
}

/**
 * Tokens the tool definitions add to every request that carries them (the agent's, every one).
 * Servers render them into the prompt in a format of their own, which OpenAI does not document, so
 * we count each tool's JSON text: close, and usually a little more, the safe side for a budget. A
 * loop sends the same tools every time, so each is counted once.
 */
export function countToolTokens(tools: readonly ChatCompletionTool[]): number {
  return tools.reduce(
    (sum, tool) => sum + countOnce(tool, () => countTextTokens(JSON.stringify(tool))),
    0,
  );
}

/** The text of a message; content may be a string or a list of parts (only text parts count here). */
function textOf(message: ChatCompletionMessageParam): string {
  const { content } = message;
  if (content === null || content === undefined) return "";
  if (typeof content === "string") return content;
  return content.map((part) => ("text" in part ? part.text : "")).join("");
}
