// Fault injection: the ways a real model endpoint misbehaves, on demand, so clients
// can be tested against them. Each fault is used up by exactly one chat request, except
// context_window: a window is a property of the model, so it holds for every request.

import type { ScriptStep } from "./script.ts";
import type { ChatCompletionChunk, WireError } from "./wire-types.ts";

export type Fault =
  /** 429 with a Retry-After header (seconds) and OpenAI's error JSON. */
  | { kind: "rate_limit"; retryAfterSeconds: number }
  /** 500 with OpenAI's error JSON. */
  | { kind: "server_error" }
  /** Waits this long before the first byte; gives up quietly when the client aborts. */
  | { kind: "stall"; ms: number }
  /** Sends part of the first tool call's arguments, then destroys the socket. */
  | { kind: "cut_stream_mid_tool_call" }
  /** The reply's first tool call gets arguments that are not valid JSON. */
  | { kind: "malformed_tool_arguments" }
  /** 404 model_not_found, as if the model name were wrong. */
  | { kind: "unknown_model" }
  /** 401 invalid_api_key, as if the key were wrong. */
  | { kind: "bad_key" }
  /**
   * 400 whose message quotes the request's Authorization header, key and all, as a proxy that
   * echoes the request it refused does: whatever the client prints of the error shows the key.
   */
  | { kind: "echo_key" }
  /**
   * The model's context window, in tokens. Not used up, and not in the order of the others: every
   * request whose prompt (counted as `usage` counts it) is bigger gets OpenAI's 400
   * context_length_exceeded.
   */
  | { kind: "context_window"; tokens: number };

/** The numbers each kind of fault needs, to check a fault read from JSON (a break-it scenario). */
export const FAULT_FIELDS: Record<Fault["kind"], readonly string[]> = {
  rate_limit: ["retryAfterSeconds"],
  server_error: [],
  stall: ["ms"],
  cut_stream_mid_tool_call: [],
  malformed_tool_arguments: [],
  unknown_model: [],
  bad_key: [],
  echo_key: [],
  context_window: ["tokens"],
};

export interface ErrorResponse {
  status: number;
  headers: Record<string, string>;
  body: WireError;
}

export function errorResponse(
  status: number,
  message: string,
  type: string,
  code: string | null,
  headers: Record<string, string> = {},
): ErrorResponse {
  return { status, headers, body: { error: { message, type, param: null, code } } };
}

export function rateLimitResponse(retryAfterSeconds: number): ErrorResponse {
  return errorResponse(
    429,
    `Rate limit reached (offline model: injected fault rate_limit). Please try again in ${retryAfterSeconds}s.`,
    "requests",
    "rate_limit_exceeded",
    { "retry-after": String(retryAfterSeconds) },
  );
}

export function serverErrorResponse(): ErrorResponse {
  return errorResponse(
    500,
    "The server had an error while processing your request (offline model: injected fault server_error).",
    "server_error",
    null,
  );
}

export function unknownModelResponse(model: string): ErrorResponse {
  return errorResponse(
    404,
    `The model \`${model}\` does not exist or you do not have access to it.`,
    "invalid_request_error",
    "model_not_found",
  );
}

// The key itself is never echoed: error texts end up in logs.
export function badKeyResponse(): ErrorResponse {
  return errorResponse(
    401,
    "Incorrect API key provided. The offline model accepts only the key it was started with.",
    "invalid_request_error",
    "invalid_api_key",
  );
}

// The one response that does echo the key, on purpose: chapter 5's client must clean it out.
export function echoKeyResponse(authorization: string | undefined): ErrorResponse {
  return errorResponse(
    400,
    `Malformed request (offline model: injected fault echo_key). The request was sent with Authorization: ${authorization ?? "(none)"}`,
    "invalid_request_error",
    "echo_key",
  );
}

// The text OpenAI answers when a request outgrows the model's window, with our label added.
export function contextLengthResponse(window: number, tokens: number): ErrorResponse {
  return errorResponse(
    400,
    `This model's maximum context length is ${window} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages. (offline model: injected fault context_window)`,
    "invalid_request_error",
    "context_length_exceeded",
  );
}

/**
 * Breaks the first tool call's arguments the way a model that stopped early would:
 * the closing brace is missing. Returns undefined when the reply calls no tool.
 */
export function withMalformedArguments(
  reply: ScriptStep["reply"],
): ScriptStep["reply"] | undefined {
  const [first, ...rest] = reply.toolCalls ?? [];
  if (first === undefined) return undefined;
  const broken = first.arguments.trimEnd().slice(0, -1);
  return { ...reply, toolCalls: [{ ...first, arguments: broken }, ...rest] };
}

/**
 * How many chunks to send before cutting the connection: up to and including the
 * first piece of the first tool call's arguments, so the client holds a call whose
 * arguments are incomplete. Returns undefined when no chunk carries arguments.
 */
export function cutPoint(chunks: ChatCompletionChunk[]): number | undefined {
  const index = chunks.findIndex((chunk) =>
    chunk.choices[0]?.delta.tool_calls?.some(
      (call) => call.id === undefined && call.function.arguments !== "",
    ),
  );
  return index === -1 ? undefined : index + 1;
}
