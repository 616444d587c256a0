import type OpenAI from "openai";
import { ContextBudgetError, droppedLine, fitToBudget } from "../context/context-budget.ts";
import { addMessages, requestMessages, type Conversation } from "../context/conversation.ts";
import type { RunLedger } from "../ledger/run-ledger.ts";
import { describeModelError, isAbort } from "../model/model-errors.ts";
import type { ChatResult } from "../model/stream-assembler.ts";
import { streamWithRetry } from "../model/stream-with-retry.ts";
import {
  countMessageTokens,
  countRequestTokens,
  countToolTokens,
} from "../context/token-counter.ts";
import { toOpenAITool, type AnyTool } from "../tools/define-tool.ts";
import type { ToolCallRequest, ToolCallResult } from "../tools/run-tool-call.ts";
import type { BudgetTracker } from "./budgets.ts";
import { remindOfPlan, type PlanLedger } from "./plan-reminder.ts";
import { extractTextPatch, textPatchCall, textPatchReport } from "./text-patch.ts";
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
  /** Runs one tool call with the harness around it (ledger, approval); throws only when aborted. */
  runCall: (call: ToolCallRequest, signal: AbortSignal) => Promise<ToolCallResult>;
  ledger: Pick<RunLedger, "recordModelCall"> & PlanLedger;
  budgets: BudgetTracker;
  /** Aborts when the user presses Ctrl-C. */
  signal: AbortSignal;
  events?: LoopEvents;
}

/**
 * The Agent Loop: ask the model, run the tools it calls, give it the results,
 * and repeat until it answers without calling a tool. Everything around that
 * core is the harness keeping the model honest: budgets end a run that does
 * not converge, every tool call gets exactly one result, a patch written as
 * text goes through the same guard as a tool call, an answer given while the
 * model's plan has open steps sends it back to them, and Ctrl-C stops cleanly.
 */
export async function runAgentLoop(options: AgentLoopOptions): Promise<LoopOutcome> {
  const { budgets, events = {} } = options;
  let conversation = options.conversation;
  const stop = (reason: StopReason, message: string): LoopOutcome => ({
    reason,
    conversation,
    answer: null,
    message,
  });

  // The time budget aborts whatever is in flight, exactly as Ctrl-C does.
  const timeUp = new AbortController();
  // (setTimeout fires at once for delays past 2^31 ms, hence the cap.)
  const timer = setTimeout(() => timeUp.abort(), Math.min(budgets.remainingMs(), 2 ** 31 - 1));
  const signal = AbortSignal.any([options.signal, timeUp.signal]);
  const stopReason = () =>
    options.signal.aborted ? "the user pressed Ctrl-C" : "the run's time budget ran out";
  const interrupted = (): LoopOutcome =>
    options.signal.aborted
      ? stop("aborted", "stopped: you pressed Ctrl-C")
      : stop("budget", `stopped: ${budgets.exceeded()?.message ?? "time budget used up"}`);

  const toolSchemas = options.tools.map(toOpenAITool);
  const effectOf = (name: string) => options.tools.find((tool) => tool.name === name)?.effect;
  const runCalls = (calls: readonly ToolCallRequest[]) =>
    runToolBatch(calls, {
      run: (call) => options.runCall(call, signal),
      effectOf,
      signal,
      stopReason,
    });
  let textPatches = 0;

  try {
    for (;;) {
      if (signal.aborted) return interrupted();
      const spent = budgets.exceeded();
      if (spent) return stop("budget", `stopped: ${spent.message}`);

      let fitted;
      try {
        fitted = fitToBudget(conversation, options.contextTokens, toolSchemas);
      } catch (error) {
        if (!(error instanceof ContextBudgetError)) throw error;
        return stop("error", `stopped: ${error.message}`);
      }
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
      const patch = extractTextPatch(answer);
      if (patch === undefined) {
        // An answer ends the run, unless the model's own plan still has steps open.
        const reminder = await remindOfPlan(options.ledger);
        if (reminder === undefined) return { reason: "done", conversation, answer, message: null };
        events.onNotice?.(reminder.notice);
        conversation = addMessages(conversation, { role: "user", content: reminder.message });
        continue;
      }

      textPatches += 1;
      const call = textPatchCall(patch, textPatches);
      const [patchResult] = await runCalls([call]);
      events.onToolCall?.(call, patchResult!);
      conversation = addMessages(conversation, {
        role: "user",
        content: textPatchReport(call, patchResult!),
      });
    }
  } finally {
    clearTimeout(timer);
  }
}

type ModelAnswer = { ok: true; result: ChatResult } | { ok: false; error: unknown };

/**
 * One model call, retried on transient failures. Failed attempts are model calls too: each one
 * spends a step of the budget (a broken endpoint must not retry forever) and is written to the
 * ledger without usage (none was reported), before the call that answered, if any.
 */
async function askModel(
  options: AgentLoopOptions,
  conversation: Conversation,
  tools: ReturnType<typeof toOpenAITool>[],
  signal: AbortSignal,
): Promise<ModelAnswer> {
  const { budgets, ledger, events = {} } = options;
  let failedCalls = 0;
  const recordFailedCalls = async () => {
    for (; failedCalls > 0; failedCalls--) {
      await ledger.recordModelCall({ model: options.model, usage: null });
    }
  };
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
      onRetry: ({ attempt, delayMs }) => {
        failedCalls += 1;
        budgets.recordModelCall(0);
        events.onNotice?.(
          `model call failed, retrying in ${(delayMs / 1000).toFixed(1)} s (retry ${attempt} of ${options.maxRetries})`,
        );
      },
    });
  } catch (error) {
    failedCalls += 1;
    budgets.recordModelCall(0);
    await recordFailedCalls();
    return { ok: false, error };
  }

  await recordFailedCalls();
  const usage = result.usage;
  // A server that reports no usage still spends tokens: count them ourselves (chapter 06).
  budgets.recordModelCall(
    usage?.total_tokens ??
      countRequestTokens(requestMessages(conversation)) +
        countToolTokens(tools) +
        countMessageTokens(result.message),
  );
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
