import type {
  ChatCompletionMessageParam,
  ChatCompletionSystemMessageParam,
} from "openai/resources/chat/completions";

export type ChatMessage = ChatCompletionMessageParam;

/**
 * The conversation is plain data: exactly the message objects the API takes, nothing hidden.
 * The system prompt is kept apart from the history: it is set once, and the history grows.
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
