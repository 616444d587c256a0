import type {
  ChatCompletionChunk,
  ChatCompletionMessageFunctionToolCall,
} from "openai/resources/chat/completions";
import type { CompletionUsage } from "openai/resources/completions";

export type ToolCall = ChatCompletionMessageFunctionToolCall;
export type FinishReason = NonNullable<ChatCompletionChunk.Choice["finish_reason"]>;

export interface AssistantMessage {
  role: "assistant";
  content: string | null;
  tool_calls?: ToolCall[];
}

export interface ChatResult {
  message: AssistantMessage;
  /** null when the server does not report usage for streams (some local servers don't). */
  usage: CompletionUsage | null;
  finishReason: FinishReason;
}

/** The stream ended before the model said it was done: what we have is half a message. */
export class StreamCutError extends Error {
  constructor(cause?: unknown) {
    super("the stream ended before a finish_reason arrived", { cause });
    this.name = "StreamCutError";
  }
}

/**
 * The most text one answer may carry, content and tool-call arguments together: about 4 MB, far
 * more than any real answer (a patch at the size limit is a few hundred KB), and far less than a
 * server stuck streaming forever would fill memory with.
 */
export const MAX_ANSWER_CHARS = 4_000_000;

/** The answer grew past MAX_ANSWER_CHARS before the model said it was done. */
export class AnswerTooLongError extends Error {
  constructor(readonly maxChars: number) {
    super(`the answer passed ${maxChars} characters without finishing`);
    this.name = "AnswerTooLongError";
  }
}

/**
 * Builds one assistant message out of streamed chunks.
 *
 * Text arrives as small `content` pieces. A tool call arrives in pieces too: the first delta for
 * an `index` carries its id and function name, later deltas for the same index carry slices of the
 * JSON arguments, which only parse once concatenated.
 */
export class StreamAssembler {
  private content = "";
  private readonly toolCalls = new Map<number, ToolCall>();
  private finishReason: FinishReason | null = null;
  private usage: CompletionUsage | null = null;
  /** Characters of content and tool-call arguments so far. */
  private size = 0;

  constructor(private readonly maxChars = MAX_ANSWER_CHARS) {}

  /** Adds one chunk; returns the text it carried (possibly "") so the caller can print it. */
  push(chunk: ChatCompletionChunk): string {
    // With include_usage, the last chunk has usage and no choices.
    if (chunk.usage) this.usage = chunk.usage;
    const choice = chunk.choices[0];
    if (choice === undefined) return "";
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
    for (const delta of choice.delta.tool_calls ?? []) this.addToolCallDelta(delta);
    const text = choice.delta.content ?? "";
    this.grow(text.length);
    this.content += text;
    return text;
  }

  /** The finished message; throws StreamCutError if the model never said it was done. */
  finish(): ChatResult {
    if (this.finishReason === null) throw new StreamCutError();
    const message: AssistantMessage = {
      role: "assistant",
      content: this.content === "" ? null : this.content,
    };
    const toolCalls = [...this.toolCalls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, call]) => call);
    if (toolCalls.length > 0) message.tool_calls = toolCalls;
    return { message, usage: this.usage, finishReason: this.finishReason };
  }

  private addToolCallDelta(delta: ChatCompletionChunk.Choice.Delta.ToolCall): void {
    let call = this.toolCalls.get(delta.index);
    if (call === undefined) {
      call = { id: "", type: "function", function: { name: "", arguments: "" } };
      this.toolCalls.set(delta.index, call);
    }
    if (delta.id) call.id = delta.id;
    // The name comes whole in one delta; some servers repeat it, so assign rather than append.
    if (delta.function?.name) call.function.name = delta.function.name;
    if (delta.function?.arguments) {
      this.grow(delta.function.arguments.length);
      call.function.arguments += delta.function.arguments;
    }
  }

  private grow(chars: number): void {
    this.size += chars;
    if (this.size > this.maxChars) throw new AnswerTooLongError(this.maxChars);
  }
}
