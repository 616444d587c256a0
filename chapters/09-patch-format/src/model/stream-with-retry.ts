import { streamChat, type StreamChatOptions } from "./model-client.ts";
import { withRetry, type RetryOptions } from "./retry.ts";
import type { ChatResult } from "./stream-assembler.ts";

export type StreamWithRetryOptions = StreamChatOptions & Omit<RetryOptions, "canRetry" | "signal">;

/**
 * One answer as the user experiences it: streamed, and retried while retrying is invisible.
 * Once text reached the screen a retry would print a second, different answer after the first
 * half, so from then on a failure is final.
 */
export async function streamWithRetry(options: StreamWithRetryOptions): Promise<ChatResult> {
  let shownText = false;
  const onText = (text: string) => {
    shownText = true;
    options.onText?.(text);
  };
  return withRetry(() => streamChat({ ...options, onText }), {
    ...options,
    canRetry: () => !shownText,
  });
}
