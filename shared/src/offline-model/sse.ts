// Turns one scripted reply into the chunks of a streamed chat completion, in the
// order OpenAI sends them: role, content pieces, tool-call pieces, finish reason,
// optional usage. Clients must reassemble the pieces, so they are split on purpose.

import type { ScriptStep } from "./script.ts";
import type {
  ChatCompletionChunk,
  FinishReason,
  WireToolCallDelta,
  WireUsage,
} from "./wire-types.ts";

export interface ChunkContext {
  id: string;
  created: number;
  model: string;
  /** The request's `stream_options.include_usage`. */
  includeUsage: boolean;
  usage: WireUsage;
}

/** Characters per streamed piece of tool-call arguments: small, so every call arrives in several pieces. */
export const ARGUMENT_PIECE_LENGTH = 16;

export function finishReasonOf(reply: ScriptStep["reply"]): FinishReason {
  return reply.toolCalls !== undefined && reply.toolCalls.length > 0 ? "tool_calls" : "stop";
}

export function replyToChunks(
  reply: ScriptStep["reply"],
  context: ChunkContext,
): ChatCompletionChunk[] {
  const chunk = (
    delta: ChatCompletionChunk["choices"][number]["delta"],
    finishReason: FinishReason | null = null,
  ): ChatCompletionChunk => ({
    id: context.id,
    object: "chat.completion.chunk",
    created: context.created,
    model: context.model,
    system_fingerprint: null,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    // With include_usage, OpenAI sends `usage: null` on every chunk but the last.
    ...(context.includeUsage ? { usage: null } : {}),
  });

  const chunks: ChatCompletionChunk[] = [
    chunk({ role: "assistant", content: reply.content === undefined ? null : "" }),
  ];
  for (const piece of splitWords(reply.content ?? "")) chunks.push(chunk({ content: piece }));
  (reply.toolCalls ?? []).forEach((call, index) => {
    const first: WireToolCallDelta = {
      index,
      id: call.id,
      type: "function",
      function: { name: call.name, arguments: "" },
    };
    chunks.push(chunk({ tool_calls: [first] }));
    for (const piece of splitEvery(call.arguments, ARGUMENT_PIECE_LENGTH)) {
      chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });
  chunks.push(chunk({}, finishReasonOf(reply)));
  if (context.includeUsage) {
    chunks.push({
      id: context.id,
      object: "chat.completion.chunk",
      created: context.created,
      model: context.model,
      system_fingerprint: null,
      choices: [],
      usage: context.usage,
    });
  }
  return chunks;
}

/** One Server-Sent Event line pair, as `data: ...` followed by a blank line. */
export function sseEvent(data: ChatCompletionChunk | "[DONE]"): string {
  return `data: ${data === "[DONE]" ? data : JSON.stringify(data)}\n\n`;
}

/** Splits text into word-sized pieces (whitespace kept), like a model's tokens. */
export function splitWords(text: string): string[] {
  if (text.length === 0) return [];
  return text.match(/\s*\S+\s*/g) ?? [text];
}

function splitEvery(text: string, size: number): string[] {
  const pieces: string[] = [];
  for (let start = 0; start < text.length; start += size)
    pieces.push(text.slice(start, start + size));
  return pieces;
}
