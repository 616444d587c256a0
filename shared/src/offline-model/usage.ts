// Token counts for the `usage` field. The offline model has no tokenizer: it estimates
// one token per four characters, which is the usual rule of thumb for English text.
// The numbers are labelled as estimates in the scripts' docs; they exist so that
// clients can exercise their usage accounting, not to be accurate.

import type { ChatRequestBody, WireUsage } from "./wire-types.ts";
import type { ScriptStep } from "./script.ts";
import { messageText } from "./script.ts";

const CHARS_PER_TOKEN = 4;

export function estimateUsage(request: ChatRequestBody, reply: ScriptStep["reply"]): WireUsage {
  const promptChars =
    request.messages.reduce(
      (sum, message) => sum + messageText(message).length + jsonLength(message.tool_calls),
      0,
    ) + jsonLength(request.tools);
  const completionChars =
    (reply.content ?? "").length +
    (reply.toolCalls ?? []).reduce(
      (sum, call) => sum + call.name.length + call.arguments.length,
      0,
    );
  const prompt_tokens = estimateTokens(promptChars);
  const completion_tokens = estimateTokens(completionChars);
  return { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens };
}

function jsonLength(value: unknown): number {
  return value === undefined ? 0 : JSON.stringify(value).length;
}

function estimateTokens(chars: number): number {
  return Math.max(1, Math.ceil(chars / CHARS_PER_TOKEN));
}
