import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  AuthenticationError,
  NotFoundError,
  RateLimitError,
} from "openai";
import { StreamCutError } from "./stream-assembler.ts";

/** The person pressed Ctrl-C (or the caller aborted): not a failure to explain. */
export class AbortedError extends Error {
  constructor() {
    super("aborted");
    this.name = "AbortedError";
  }
}

export function isAbort(error: unknown): boolean {
  return error instanceof AbortedError || error instanceof APIUserAbortError;
}

export interface ErrorContext {
  baseURL: string;
  model: string;
  timeoutMs: number;
}

/**
 * One line a person can act on: what failed, and which setting to look at.
 * The order matters: the SDK's timeout error is a kind of connection error.
 */
export function describeModelError(error: unknown, context: ErrorContext): string {
  const { baseURL, model, timeoutMs } = context;
  if (error instanceof APIConnectionTimeoutError) {
    return `no answer from ${baseURL} within ${timeoutMs} ms: raise AGENT_TIMEOUT_MS`;
  }
  if (error instanceof APIConnectionError) {
    return `cannot reach ${baseURL}: is the server running? check OPENAI_BASE_URL`;
  }
  if (error instanceof AuthenticationError) {
    return `key rejected by ${baseURL}: check OPENAI_API_KEY`;
  }
  if (error instanceof NotFoundError) {
    return `model "${model}" not found at ${baseURL}: check AGENT_MODEL`;
  }
  if (error instanceof RateLimitError) {
    return `rate-limited by ${baseURL}: wait a minute and try again`;
  }
  if (error instanceof StreamCutError) {
    return `the answer from ${baseURL} was cut off before it finished: try again`;
  }
  if (error instanceof APIError && error.status !== undefined && error.status >= 500) {
    return `${baseURL} failed with HTTP ${error.status}: try again later`;
  }
  if (error instanceof APIError) {
    return `${baseURL} returned an error: ${error.message}`;
  }
  return `unexpected error: ${error instanceof Error ? error.message : String(error)}`;
}
