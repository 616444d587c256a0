import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  AuthenticationError,
  NotFoundError,
  RateLimitError,
} from "openai";
import { AnswerTooLongError, StreamCutError } from "./stream-assembler.ts";

/** The person pressed Ctrl-C (or the caller aborted): not a failure to explain. */
export class AbortedError extends Error {
  constructor() {
    super("aborted");
    this.name = "AbortedError";
  }
}

/** No answer (or no further chunk) within the configured time. */
export class ModelTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
    this.name = "ModelTimeoutError";
  }
}

// Shorter keys are placeholders such as "local", not secrets: hiding them would garble "localhost".
const MIN_SECRET_LENGTH = 8;

/** The text with every copy of the key replaced by its first three characters and "…(redacted)". */
export function redactKey(text: string, apiKey: string): string {
  if (apiKey.length < MIN_SECRET_LENGTH) return text;
  return text.replaceAll(apiKey, `${apiKey.slice(0, 3)}…(redacted)`);
}

/**
 * Takes the key out of an error's message and stack, in place. A server's error body may echo the
 * request, Authorization header included, and the SDK puts that body into the message: cleaned
 * here, where it leaves the model client, no message, retry notice or log line can show the key.
 */
export function redactError(error: unknown, apiKey: string): unknown {
  if (error instanceof Error) {
    error.message = redactKey(error.message, apiKey);
    if (error.stack !== undefined) error.stack = redactKey(error.stack, apiKey);
  }
  return error;
}

export function isAbort(error: unknown): boolean {
  return error instanceof AbortedError || error instanceof APIUserAbortError;
}

export interface ErrorContext {
  baseURL: string;
  model: string;
  timeoutMs: number;
  maxRetries: number;
}

/**
 * One line a person can act on: what failed, and which setting to look at.
 * The order matters: the SDK's timeout error is a kind of connection error.
 */
export function describeModelError(error: unknown, context: ErrorContext): string {
  const { baseURL, model, timeoutMs, maxRetries } = context;
  if (error instanceof ModelTimeoutError || error instanceof APIConnectionTimeoutError) {
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
    return `rate-limited by ${baseURL}, still after ${retries(maxRetries)}: wait a minute, or raise AGENT_MAX_RETRIES`;
  }
  if (error instanceof StreamCutError) {
    return `the answer from ${baseURL} was cut off before it finished: try again`;
  }
  if (error instanceof AnswerTooLongError) {
    return `the answer from ${baseURL} passed ${error.maxChars} characters without finishing, so it was stopped: the server may be stuck repeating itself; try again`;
  }
  if (error instanceof APIError && error.status !== undefined && error.status >= 500) {
    return `${baseURL} failed with HTTP ${error.status}, still after ${retries(maxRetries)}: try again later`;
  }
  if (error instanceof APIError) {
    return `${baseURL} returned an error: ${error.message}`;
  }
  return `unexpected error: ${error instanceof Error ? error.message : String(error)}`;
}

function retries(count: number): string {
  return count === 1 ? "1 retry" : `${count} retries`;
}
