import { setTimeout as delay } from "node:timers/promises";
import { APIConnectionError, APIError } from "openai";
import { AbortedError, ModelTimeoutError } from "./model-errors.ts";
import { StreamCutError } from "./stream-assembler.ts";

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export interface RetryOptions {
  maxRetries: number;
  signal?: AbortSignal;
  /** False once retrying would be wrong, e.g. after part of an answer was shown to the user. */
  canRetry?: () => boolean;
  /** Injectable so tests can assert the delay without waiting for it. */
  sleep?: Sleep;
  /** Injectable jitter source, 0 <= random() < 1. */
  random?: () => number;
  onRetry?: (info: { attempt: number; delayMs: number; error: unknown }) => void;
}

const BASE_DELAY_MS = 500;
const MAX_BACKOFF_MS = 8_000;
// A server may ask for a long wait (quota reset); we wait at most this long, then try anyway.
const MAX_RETRY_AFTER_MS = 60_000;

/** Runs `attempt` until it succeeds, the error is not worth retrying, or retries run out. */
export async function withRetry<T>(attempt: () => Promise<T>, options: RetryOptions): Promise<T> {
  const { maxRetries, signal, canRetry = () => true, onRetry } = options;
  const sleep = options.sleep ?? abortableSleep;
  const random = options.random ?? Math.random;
  for (let retry = 0; ; retry++) {
    try {
      return await attempt();
    } catch (error) {
      if (retry >= maxRetries || signal?.aborted || !canRetry() || !isRetryable(error)) throw error;
      const delayMs = retryDelayMs(error, retry + 1, random);
      onRetry?.({ attempt: retry + 1, delayMs, error });
      await sleep(delayMs, signal);
      if (signal?.aborted) throw new AbortedError();
    }
  }
}

/** Worth another try: the request might succeed unchanged. A 400 or 401 never will. */
export function isRetryable(error: unknown): boolean {
  if (error instanceof ModelTimeoutError || error instanceof StreamCutError) return true;
  // Connection errors (refused, reset, timed out) have no status.
  if (error instanceof APIConnectionError) return true;
  if (error instanceof APIError && error.status !== undefined) {
    const status = error.status;
    return status === 408 || status === 409 || status === 429 || status >= 500;
  }
  return false;
}

/**
 * The server's Retry-After if it sent one, else exponential backoff with jitter:
 * 500 ms, 1 s, 2 s, ... capped at 8 s, each randomised down by up to half so that many
 * clients failing together do not retry together.
 */
export function retryDelayMs(error: unknown, attempt: number, random: () => number): number {
  const fromServer = error instanceof APIError ? retryAfterMs(error.headers) : undefined;
  if (fromServer !== undefined) return Math.min(fromServer, MAX_RETRY_AFTER_MS);
  const backoff = Math.min(MAX_BACKOFF_MS, BASE_DELAY_MS * 2 ** (attempt - 1));
  return Math.round(backoff / 2 + (random() * backoff) / 2);
}

/** Retry-After is either seconds ("2") or an HTTP date ("Wed, 21 Oct 2015 07:28:00 GMT"). */
export function retryAfterMs(headers: Headers | undefined, now = Date.now()): number | undefined {
  const value = headers?.get("retry-after");
  if (value === null || value === undefined || value.trim() === "") return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

async function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  try {
    await delay(ms, undefined, { signal });
  } catch (error) {
    if (signal?.aborted) throw new AbortedError();
    throw error;
  }
}
