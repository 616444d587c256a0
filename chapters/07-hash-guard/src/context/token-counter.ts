import { encode } from "gpt-tokenizer/encoding/o200k_base";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";

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

export function countTextTokens(text: string): number {
  return encode(text).length;
}

/** Tokens one message adds to a request, markers included. */
export function countMessageTokens(message: ChatCompletionMessageParam): number {
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

/** The text of a message; content may be a string or a list of parts (only text parts count here). */
function textOf(message: ChatCompletionMessageParam): string {
  const { content } = message;
  if (content === null || content === undefined) return "";
  if (typeof content === "string") return content;
  return content.map((part) => ("text" in part ? part.text : "")).join("");
}
