import type { ChatCompletionTool } from "openai/resources/chat/completions";
import { splitTurns, type ChatMessage, type Conversation } from "./conversation.ts";
import { countMessageTokens, countRequestTokens, countToolTokens } from "./token-counter.ts";

/**
 * How many tokens a request may use (AGENT_CONTEXT_TOKENS). Keep it below the model's context
 * window: the answer needs room too, and for non-OpenAI models our count is an estimate.
 */
export const DEFAULT_CONTEXT_TOKENS = 32_000;

export interface Dropped {
  messages: number;
  tokens: number;
}

export interface Fitted {
  conversation: Conversation;
  /** Tokens the fitted request uses. */
  tokens: number;
  dropped: Dropped;
}

/** Even after dropping all it may drop, the request does not fit. */
export class ContextBudgetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ContextBudgetError";
  }
}

/**
 * Makes the conversation fit the budget. The policy:
 *  1. The system prompt is never dropped: without it the model is a different assistant. Nor are
 *     the tool definitions, which go with every request of the agent.
 *  2. The oldest whole turns go first. A turn is a user message and everything up to the next one,
 *     so a tool call is never separated from its result.
 *  3. The latest turn is always kept: it holds the question being asked.
 *  4. If the system prompt and the latest turn alone are too big, that is an error, not a guess.
 * What was dropped is returned, so the caller can tell the user.
 */
export function fitToBudget(
  conversation: Conversation,
  budget: number,
  tools: readonly ChatCompletionTool[] = [],
): Fitted {
  // What every request carries, whatever is dropped: the system prompt, and the tools if any.
  const fixed = tools.length === 0 ? "the system prompt" : "the system prompt and the tools";
  const fixedTokens = countRequestTokens([conversation.system]) + countToolTokens(tools);
  if (fixedTokens > budget) {
    throw new ContextBudgetError(
      `${fixed} alone ${tools.length === 0 ? "needs" : "need"} ${fixedTokens} tokens, more than the ${budget}-token budget: raise AGENT_CONTEXT_TOKENS`,
    );
  }
  const turns = splitTurns(conversation.history).map((messages) => ({
    messages,
    tokens: sumTokens(messages),
  }));
  let total = fixedTokens + turns.reduce((sum, turn) => sum + turn.tokens, 0);
  const dropped: Dropped = { messages: 0, tokens: 0 };
  while (total > budget && turns.length > 1) {
    const oldest = turns.shift()!;
    total -= oldest.tokens;
    dropped.messages += oldest.messages.length;
    dropped.tokens += oldest.tokens;
  }
  if (total > budget) {
    throw new ContextBudgetError(
      `the latest message needs ${total - fixedTokens} tokens; with ${fixed} that is ${total}, more than the ${budget}-token budget: shorten the message, or raise AGENT_CONTEXT_TOKENS`,
    );
  }
  const history = turns.flatMap((turn) => turn.messages);
  return { conversation: { ...conversation, history }, tokens: total, dropped };
}

/** The one line the user sees when history was dropped; undefined when nothing was. */
export function droppedLine(dropped: Dropped, budget: number): string | undefined {
  if (dropped.messages === 0) return undefined;
  const messages = dropped.messages === 1 ? "1 old message" : `${dropped.messages} old messages`;
  return `context: dropped ${messages} (${dropped.tokens} tokens) to fit the ${budget}-token budget`;
}

function sumTokens(messages: readonly ChatMessage[]): number {
  return messages.reduce((sum, message) => sum + countMessageTokens(message), 0);
}
