// Token counts for the `usage` field, counted the way OpenAI's chat models count them: the o200k_base
// tokenizer plus the documented per-message overhead (3 tokens a message, 1 for a name, 3 to prime
// the reply). So a chapter that counts its own request (chapter 06) sees the server agree with it,
// as it would with a real model. Tool definitions are counted as their JSON text: real servers
// render them in a private format, so for requests with tools the numbers are close, not exact.

import { createRequire } from "node:module";
import type * as O200kBase from "gpt-tokenizer/encoding/o200k_base";
import type { ChatRequestBody, WireUsage } from "./wire-types.ts";
import type { ScriptStep } from "./script.ts";
import { messageText } from "./script.ts";

// The tokenizer's tables are 2 MB of JavaScript (about 0.3 s and 100 MB to load): they load at the
// first count, so a program that only imports the offline model (every chapter's main) never pays.
const require = createRequire(import.meta.url);
let tokenizer: typeof O200kBase | undefined;

function encode(text: string): number[] {
  tokenizer ??= require("gpt-tokenizer/encoding/o200k_base") as typeof O200kBase;
  return tokenizer.encode(text);
}

const TOKENS_PER_MESSAGE = 3;
const TOKENS_PER_NAME = 1;
const REPLY_PRIMING = 3;

export function estimateUsage(request: ChatRequestBody, reply: ScriptStep["reply"]): WireUsage {
  const prompt_tokens = countPromptTokens(request);
  const completion_tokens = Math.max(
    1,
    countTokens(reply.content ?? "") +
      (reply.toolCalls ?? []).reduce(
        (sum, call) => sum + countTokens(call.name) + countTokens(call.arguments),
        0,
      ),
  );
  return { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens };
}

/** The request's prompt tokens: its messages, the reply priming and the tool definitions. */
export function countPromptTokens(request: ChatRequestBody): number {
  return (
    request.messages.reduce(
      (sum, message) =>
        sum +
        TOKENS_PER_MESSAGE +
        countTokens(message.role) +
        countTokens(messageText(message)) +
        (message.name === undefined ? 0 : TOKENS_PER_NAME + countTokens(message.name)) +
        jsonTokens(message.tool_calls),
      REPLY_PRIMING,
    ) + jsonTokens(request.tools)
  );
}

// Long runs without a break (a base64 blob, `=====`) are counted in pieces, exactly as chapter 06's
// counter does: the tokenizer is quadratic on such a run, and a 1 MB tool-call argument would freeze
// this server for many minutes. Counting the same way also keeps the server agreeing with chapter 06.
const MAX_RUN_CHARS = 256;
const LONG_RUN = new RegExp(`(?<!\\S)\\S{${MAX_RUN_CHARS},}|(?<!\\s)\\s{${MAX_RUN_CHARS},}`, "g");

export function countTokens(text: string): number {
  let tokens = 0;
  let start = 0;
  for (const run of text.matchAll(LONG_RUN)) {
    tokens += encode(text.slice(start, run.index)).length;
    for (let at = 0; at < run[0].length;) {
      let end = Math.min(at + MAX_RUN_CHARS, run[0].length);
      if (/[\uDC00-\uDFFF]/.test(run[0][end] ?? "")) end += 1; // never cut an emoji in two
      tokens += encode(run[0].slice(at, end)).length;
      at = end;
    }
    start = run.index + run[0].length;
  }
  return tokens + encode(text.slice(start)).length;
}

function jsonTokens(value: unknown): number {
  return value === undefined ? 0 : countTokens(JSON.stringify(value));
}
