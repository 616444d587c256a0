import OpenAI from "openai";
import type {
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from "openai/resources/chat/completions";
import { StreamAssembler, StreamCutError, type ChatResult } from "./stream-assembler.ts";
import { AbortedError } from "./model-errors.ts";

export interface Endpoint {
  baseURL: string;
  apiKey: string;
  timeoutMs: number;
}

/** The SDK client for any OpenAI-compatible endpoint. */
export function createModelClient({ baseURL, apiKey, timeoutMs }: Endpoint): OpenAI {
  // maxRetries: 0, so that a failure shows as what it is; retrying is chapter 4's lesson.
  return new OpenAI({ baseURL, apiKey, timeout: timeoutMs, maxRetries: 0 });
}

export interface StreamChatOptions {
  client: OpenAI;
  model: string;
  messages: ChatCompletionMessageParam[];
  tools?: ChatCompletionTool[];
  signal?: AbortSignal;
  /** Called with each piece of answer text as it arrives. */
  onText?: (text: string) => void;
}

/** One streamed chat completion, reassembled into a whole assistant message. */
export async function streamChat(options: StreamChatOptions): Promise<ChatResult> {
  const { client, model, messages, tools, signal, onText } = options;
  if (signal?.aborted) throw new AbortedError();
  const stream = await client.chat.completions.create(
    {
      model,
      messages,
      ...(tools && tools.length > 0 ? { tools } : {}),
      stream: true,
      stream_options: { include_usage: true },
    },
    { signal },
  );
  const assembler = new StreamAssembler();
  try {
    for await (const chunk of stream) {
      const text = assembler.push(chunk);
      if (text !== "") onText?.(text);
    }
  } catch (error) {
    // A connection dropped mid-answer surfaces as TypeError("terminated") from fetch.
    if (error instanceof TypeError && error.message === "terminated")
      throw new StreamCutError(error);
    throw error;
  }
  // The SDK ends the iteration quietly when aborted, so check before judging the message.
  if (signal?.aborted) throw new AbortedError();
  return assembler.finish();
}
