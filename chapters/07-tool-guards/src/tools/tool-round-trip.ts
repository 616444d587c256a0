import type OpenAI from "openai";
import { fitToBudget, droppedLine } from "../context/context-budget.ts";
import { addMessages, requestMessages, type Conversation } from "../context/conversation.ts";
import type { RetryOptions } from "../model/retry.ts";
import type { ChatResult } from "../model/stream-assembler.ts";
import { streamWithRetry } from "../model/stream-with-retry.ts";
import { toOpenAITool, type AnyTool, type ToolContext } from "./define-tool.ts";
import { runToolCall, type ToolCallRequest, type ToolCallResult } from "./run-tool-call.ts";

export const DEFAULT_MAX_ROUNDS = 8;

export interface ToolRoundTripOptions {
  client: OpenAI;
  model: string;
  /** Ends with the user's question. */
  conversation: Conversation;
  tools: readonly AnyTool[];
  context: ToolContext;
  contextTokens: number;
  maxRetries: number;
  /** How many model calls at most; a model that keeps calling tools is stopped. */
  maxRounds?: number;
  onText?: (text: string) => void;
  /** Told before each retry of a model call, so the person sees why nothing is happening. */
  onRetry?: RetryOptions["onRetry"];
  onToolCall?: (call: ToolCallRequest, result: ToolCallResult) => void;
  onNotice?: (line: string) => void;
}

export interface ToolRoundTripResult {
  conversation: Conversation;
  /** The model's final text; null when it still wanted tools after maxRounds. */
  answer: string | null;
  rounds: number;
  /** Tokens over all model calls; null when the server did not report them. */
  usage: { prompt: number; completion: number } | null;
}

/**
 * Asks the model, runs the tools it asks for, sends the results back, and repeats until it
 * answers in text. The harness, not the model, runs the tools: the model only sees their
 * results. Chapter 18 grows this into the Agent Loop, with budgets and approval after it.
 */
export async function answerWithTools(options: ToolRoundTripOptions): Promise<ToolRoundTripResult> {
  const { tools, context, maxRounds = DEFAULT_MAX_ROUNDS } = options;
  const toolSchemas = tools.map(toOpenAITool);
  let conversation = options.conversation;
  let usage: ToolRoundTripResult["usage"] = { prompt: 0, completion: 0 };

  for (let round = 1; round <= maxRounds; round++) {
    const fitted = fitToBudget(conversation, options.contextTokens, toolSchemas);
    const dropped = droppedLine(fitted.dropped, options.contextTokens);
    if (dropped) options.onNotice?.(dropped);
    conversation = fitted.conversation;

    const result = await streamWithRetry({
      client: options.client,
      model: options.model,
      messages: requestMessages(conversation),
      tools: toolSchemas,
      signal: context.signal,
      maxRetries: options.maxRetries,
      onText: options.onText,
      onRetry: options.onRetry,
    });
    usage = addUsage(usage, result);
    conversation = addMessages(conversation, result.message);

    const calls = result.message.tool_calls ?? [];
    if (calls.length === 0) {
      return { conversation, answer: result.message.content ?? "", rounds: round, usage };
    }
    // Every call gets a result, even a failed one: the API rejects a request
    // in which a tool call has no answer.
    for (const call of calls) {
      const outcome = await runToolCall(tools, call, context);
      options.onToolCall?.(call, outcome);
      conversation = addMessages(conversation, {
        role: "tool",
        tool_call_id: outcome.tool_call_id,
        content: outcome.content,
      });
    }
  }
  return { conversation, answer: null, rounds: maxRounds, usage };
}

function addUsage(
  total: ToolRoundTripResult["usage"],
  { usage }: ChatResult,
): ToolRoundTripResult["usage"] {
  // One unreported call makes the sum unknown; say so rather than undercount.
  if (total === null || usage === null) return null;
  return {
    prompt: total.prompt + usage.prompt_tokens,
    completion: total.completion + usage.completion_tokens,
  };
}
