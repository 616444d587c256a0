import OpenAI from "openai";
import type {
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from "openai/resources/chat/completions";
import { StreamAssembler, StreamCutError, type ChatResult } from "./stream-assembler.ts";
import { AbortedError, ModelTimeoutError } from "./model-errors.ts";

export interface Endpoint {
  baseURL: string;
  apiKey: string;
  timeoutMs: number;
}

/** The SDK client for any OpenAI-compatible endpoint. */
export function createModelClient({ baseURL, apiKey, timeoutMs }: Endpoint): OpenAI {
  // maxRetries: 0 because retrying is a lesson of its own (retry.ts), not SDK magic.
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
  /** The answer's size limit in characters (default MAX_ANSWER_CHARS); tests set a small one. */
  maxAnswerChars?: number;
}

/**
 * One streamed chat completion, reassembled into a whole assistant message.
 *
 * The SDK's timeout only covers the wait for response headers; a server can then stall mid-stream
 * forever. So we also abort when no chunk arrives for `client.timeout` ms.
 */
export async function streamChat(options: StreamChatOptions): Promise<ChatResult> {
  const { client, model, messages, tools, signal, onText, maxAnswerChars } = options;
  const controller = new AbortController();
  const forwardAbort = () => controller.abort();
  signal?.addEventListener("abort", forwardAbort, { once: true });
  let timedOut = false;
  let timer: NodeJS.Timeout | undefined;
  const restartTimer = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, client.timeout);
  };

  try {
    restartTimer();
    if (signal?.aborted) throw new AbortedError();
    const stream = await client.chat.completions.create(
      {
        model,
        messages,
        ...(tools && tools.length > 0 ? { tools } : {}),
        stream: true,
        stream_options: { include_usage: true },
      },
      { signal: controller.signal },
    );
    const assembler = new StreamAssembler(maxAnswerChars);
    try {
      for await (const chunk of stream) {
        restartTimer();
        const text = assembler.push(chunk);
        if (text !== "") onText?.(text);
      }
    } catch (error) {
      // A connection dropped mid-answer surfaces as TypeError("terminated") from fetch.
      if (error instanceof TypeError && error.message === "terminated")
        throw new StreamCutError(error);
      throw error;
    }
    // The SDK ends the iteration quietly when aborted, so check why we stopped before judging.
    throwIfStopped();
    return assembler.finish();
  } catch (error) {
    throwIfStopped();
    throw error;
  } finally {
    // Lets go of the connection whatever happened: a server that streams forever keeps sending.
    controller.abort();
    clearTimeout(timer);
    signal?.removeEventListener("abort", forwardAbort);
  }

  function throwIfStopped(): void {
    if (signal?.aborted) throw new AbortedError();
    if (timedOut) throw new ModelTimeoutError(client.timeout);
  }
}
