import type {
  ChatCompletionMessageParam,
  ChatCompletionSystemMessageParam,
} from "openai/resources/chat/completions";

export type ChatMessage = ChatCompletionMessageParam;

/**
 * The conversation is plain data: exactly the message objects the API takes, nothing hidden.
 * The system prompt is kept apart from the history because the budget treats it differently:
 * history can be dropped, the system prompt never is.
 */
export interface Conversation {
  readonly system: ChatCompletionSystemMessageParam;
  /** Everything after the system prompt, oldest first. */
  readonly history: readonly ChatMessage[];
}

export const DEFAULT_SYSTEM_PROMPT =
  "You are a helpful assistant for a software developer. Answer concisely.";

export function startConversation(systemPrompt = DEFAULT_SYSTEM_PROMPT): Conversation {
  return { system: { role: "system", content: systemPrompt }, history: [] };
}

export function addMessages(conversation: Conversation, ...messages: ChatMessage[]): Conversation {
  return { ...conversation, history: [...conversation.history, ...messages] };
}

/** The messages to send: system prompt first, then the history. */
export function requestMessages(conversation: Conversation): ChatMessage[] {
  return [conversation.system, ...conversation.history];
}

/**
 * Splits history into turns. A turn starts at a user message and runs up to the next one, so an
 * assistant's tool calls and the tool results answering them always land in the same turn: the API
 * rejects a tool result whose call is missing. Messages before the first user message (rare) form
 * a turn of their own.
 */
export function splitTurns(history: readonly ChatMessage[]): ChatMessage[][] {
  const turns: ChatMessage[][] = [];
  for (const message of history) {
    const current = turns.at(-1);
    if (current === undefined || message.role === "user") turns.push([message]);
    else current.push(message);
  }
  return turns;
}
