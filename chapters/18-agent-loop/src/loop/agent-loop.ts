import type OpenAI from "openai";
import { droppedLine, fitToBudget } from "../context/context-budget.ts";
import { addMessages, requestMessages, type Conversation } from "../context/conversation.ts";
import type { RunLedger } from "../ledger/run-ledger.ts";
import { describeModelError, isAbort } from "../model/model-errors.ts";
import type { ChatResult } from "../model/stream-assembler.ts";
import { streamWithRetry } from "../model/stream-with-retry.ts";
import { toOpenAITool, type AnyTool } from "../tools/define-tool.ts";
import type { ToolCallRequest, ToolCallResult } from "../tools/run-tool-call.ts";
import { runToolBatch } from "./tool-batch.ts";

/** Why a run ended; the ledger's run_end reason. */
export type StopReason = "done" | "budget" | "aborted" | "error";

export interface LoopOutcome {
  reason: StopReason;
  /** The conversation so far; every tool call in it has its result, so it can go on. */
  conversation: Conversation;
  /** The model's final answer when reason is "done". */
  answer: string | null;
  /** For any other reason: one line that says why the run stopped. */
  message: string | null;
}

/** What the person watching sees, as it happens. */
export interface LoopEvents {
  onText?: (text: string) => void;
  onToolCall?: (call: ToolCallRequest, result: ToolCallResult) => void;
  onNotice?: (line: string) => void;
}

export interface AgentLoopOptions {
  client: OpenAI;
  model: string;
  maxRetries: number;
  contextTokens: number;
  /** Ends with the user's task. */
  conversation: Conversation;
  tools: readonly AnyTool[];
  /** Runs one tool call with the harness around it (ledger, notes); throws only when aborted. */
  runCall: (call: ToolCallRequest, signal: AbortSignal) => Promise<ToolCallResult>;
  ledger: Pick<RunLedger, "recordModelCall">;
  /** Model calls at most: a model that never stops calling tools must not run forever. */
  maxSteps: number;
  /** Aborts when the user presses Ctrl-C. */
  signal: AbortSignal;
  events?: LoopEvents;
}

/**
 * The Agent Loop: ask the model, run the tools it calls, give it the results,
 * and repeat until it answers without calling a tool. The harness, not the
 * model, runs the tools and decides when to stop: every tool call gets exactly
 * one result, and a run ends after at most maxSteps model calls.
 */
export async function runAgentLoop(options: AgentLoopOptions): Promise<LoopOutcome> {
  const { signal, maxSteps, events = {} } = options;
  let conversation = options.conversation;
  const stop = (reason: StopReason, message: string): LoopOutcome => ({
    reason,
    conversation,
    answer: null,
    message,
  });
  const interrupted = (): LoopOutcome => stop("aborted", "stopped: you pressed Ctrl-C");

  const toolSchemas = options.tools.map(toOpenAITool);
  const effectOf = (name: string) => options.tools.find((tool) => tool.name === name)?.effect;
  const runCalls = (calls: readonly ToolCallRequest[]) =>
    runToolBatch(calls, {
      run: (call) => options.runCall(call, signal),
      effectOf,
      signal,
      stopReason: () => "the user pressed Ctrl-C",
    });

  for (let steps = 0; ; steps++) {
    if (signal.aborted) return interrupted();
    if (steps >= maxSteps) {
      return stop(
        "budget",
        `stopped: step budget used up: ${steps} of ${maxSteps} model calls (raise it with --max-steps)`,
      );
    }

    // Throws ContextBudgetError when even the task alone does not fit (chapter 06).
    const fitted = fitToBudget(conversation, options.contextTokens, toolSchemas);
    const dropped = droppedLine(fitted.dropped, options.contextTokens);
    if (dropped) events.onNotice?.(dropped);
    conversation = fitted.conversation;

    const asked = await askModel(options, conversation, toolSchemas, signal);
    if (!asked.ok) {
      if (signal.aborted || isAbort(asked.error)) return interrupted();
      return stop("error", `stopped: ${describeFailure(options, asked.error)}`);
    }
    const result = asked.result;
    conversation = addMessages(conversation, result.message);

    const calls = result.message.tool_calls ?? [];
    if (calls.length > 0) {
      const results = await runCalls(calls);
      calls.forEach((call, i) => events.onToolCall?.(call, results[i]!));
      conversation = addMessages(conversation, ...results.map(toolMessage));
      continue;
    }

    const answer = result.message.content ?? "";
    return { reason: "done", conversation, answer, message: null };
  }
}

type ModelAnswer = { ok: true; result: ChatResult } | { ok: false; error: unknown };

/** One model call, retried on transient failures (chapter 01); the ledger records its usage. */
async function askModel(
  options: AgentLoopOptions,
  conversation: Conversation,
  tools: ReturnType<typeof toOpenAITool>[],
  signal: AbortSignal,
): Promise<ModelAnswer> {
  const { ledger, events = {} } = options;
  let result: ChatResult;
  try {
    result = await streamWithRetry({
      client: options.client,
      model: options.model,
      messages: requestMessages(conversation),
      tools,
      signal,
      maxRetries: options.maxRetries,
      onText: events.onText,
    });
  } catch (error) {
    return { ok: false, error };
  }

  const usage = result.usage;
  await ledger.recordModelCall({
    model: options.model,
    // null when the server did not report usage: unknown is not zero.
    usage: usage && { input_tokens: usage.prompt_tokens, output_tokens: usage.completion_tokens },
  });
  return { ok: true, result };
}

/** The one line a person reads when the model cannot be reached (chapter 01's messages). */
function describeFailure(options: AgentLoopOptions, error: unknown): string {
  return describeModelError(error, {
    baseURL: options.client.baseURL,
    model: options.model,
    timeoutMs: options.client.timeout,
    maxRetries: options.maxRetries,
  });
}

function toolMessage(result: ToolCallResult) {
  return { role: "tool" as const, tool_call_id: result.tool_call_id, content: result.content };
}
