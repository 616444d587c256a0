// The slice of the OpenAI Chat Completions wire format the offline model speaks.
// Written by hand (not imported from the `openai` package) so the server shows
// exactly which JSON travels over HTTP, and so `shared` needs no runtime dependency.

export interface WireToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** A content part as sent by clients that use the array form of `content`. */
export interface WireContentPart {
  type: string;
  text?: string;
}

export interface WireMessage {
  role: "system" | "developer" | "user" | "assistant" | "tool";
  content?: string | WireContentPart[] | null;
  tool_calls?: WireToolCall[];
  tool_call_id?: string;
  name?: string;
}

export interface WireToolDefinition {
  type: "function";
  function: { name: string; description?: string; parameters?: unknown };
}

/** The body of `POST /v1/chat/completions`, as far as the offline model reads it. */
export interface ChatRequestBody {
  model: string;
  messages: WireMessage[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean } | null;
  tools?: WireToolDefinition[];
  /** Anything else the client sent (temperature, tool_choice, ...) is kept but not interpreted. */
  [field: string]: unknown;
}

export interface WireUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export type FinishReason = "stop" | "tool_calls";

export interface ChatCompletion {
  id: string;
  object: "chat.completion";
  created: number;
  model: string;
  system_fingerprint: null;
  choices: Array<{
    index: number;
    message: {
      role: "assistant";
      content: string | null;
      refusal: null;
      tool_calls?: WireToolCall[];
    };
    logprobs: null;
    finish_reason: FinishReason;
  }>;
  usage: WireUsage;
}

/** A tool-call fragment inside a streamed delta: only the first fragment of a call names it. */
export interface WireToolCallDelta {
  index: number;
  id?: string;
  type?: "function";
  function: { name?: string; arguments: string };
}

export interface ChatCompletionChunk {
  id: string;
  object: "chat.completion.chunk";
  created: number;
  model: string;
  system_fingerprint: null;
  choices: Array<{
    index: number;
    delta: {
      role?: "assistant";
      content?: string | null;
      tool_calls?: WireToolCallDelta[];
    };
    logprobs: null;
    finish_reason: FinishReason | null;
  }>;
  /** Present (as null, then as numbers in a final choice-less chunk) only when `include_usage` was asked for. */
  usage?: WireUsage | null;
}

/** OpenAI's error envelope; the SDK turns it into its typed `APIError` subclasses. */
export interface WireError {
  error: {
    message: string;
    type: string;
    param: string | null;
    code: string | null;
  };
}
