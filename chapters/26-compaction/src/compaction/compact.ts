import type { ChatCompletionTool } from "openai/resources/chat/completions";
import type { ChatMessage, Conversation } from "../context/conversation.ts";
import {
  countMessageTokens,
  countRequestTokens,
  countToolTokens,
} from "../context/token-counter.ts";
import type { RunLedger } from "../ledger/run-ledger.ts";
import { ledgerFacts } from "./ledger-facts.ts";

/**
 * Compaction starts when the task's request would use more than this share of the context budget.
 * Not at 100%: the model's summary is asked for in one more request, which carries that history
 * plus the question and must fit too; and the next tool result must find room before the limit.
 */
export const COMPACT_AT = 0.75;
/** The newest messages are kept word for word, as many as fit in this share of the budget. */
export const KEEP_RECENT = 0.25;

/** The fixed start of the summary question, so a script (or a log search) can recognise it. */
export const SUMMARY_PHRASE = "Summarize your work so far for compaction";
export const SUMMARY_REQUEST = `${SUMMARY_PHRASE}: the harness is about to replace the older part of this conversation with the facts from the run's ledger and your summary. In at most 5 sentences, say what you have learned that the files and commands do not show, and what you were about to do next. Do not call tools.`;

export interface CompactionOptions {
  /** The user's task: it and everything before it are kept word for word. */
  task: ChatMessage | undefined;
  budget: number;
  tools: readonly ChatCompletionTool[];
  ledger: Pick<RunLedger, "events" | "recordCompaction">;
  /** One extra model call: its answer to `conversation`, or undefined when it failed. */
  summarize: (conversation: Conversation) => Promise<string | undefined>;
  /** Ctrl-C or the time budget: when it aborts the summary call, nothing is compacted. */
  signal?: AbortSignal;
  onNotice?: (line: string) => void;
}

/**
 * When the task has outgrown COMPACT_AT of the budget, replaces its oldest messages with one user
 * message: the facts from the ledger and the model's own summary. What never changes: the system
 * prompt (with AGENTS.md), the task message and all before it, and the newest steps; and a cut
 * never falls between a tool call and its results. Returns the conversation unchanged when it is
 * small enough, when compacting would free nothing, or when the run was stopped during the
 * summary; fitToBudget then has the last word, as before.
 */
export async function compactIfNeeded(
  conversation: Conversation,
  options: CompactionOptions,
): Promise<Conversation> {
  const { history } = conversation;
  const taskAt = options.task === undefined ? -1 : history.indexOf(options.task);
  const from = taskAt + 1;
  const limit = options.budget * COMPACT_AT;
  if (taskTokens(conversation, taskAt, options.tools) <= limit) return conversation;
  const cut = chooseCut(history, from, options.budget * KEEP_RECENT);
  if (cut === undefined) return conversation;
  const replaced = history.slice(from, cut);
  const facts = ledgerFacts(options.ledger.events());
  // A compaction costs a model call, so it must free the request. When the kept steps alone are too
  // big, the cut would replace only the last compaction message, or leave the request over the
  // threshold before any summary: each step would compact again and save nothing. fitToBudget acts.
  const factsOnly = withMessage(
    conversation,
    from,
    cut,
    compactionText(replaced.length, facts, ""),
  );
  if (replaced.every(isCompaction) || taskTokens(factsOnly, taskAt, options.tools) > limit) {
    return conversation;
  }

  const asked = summaryConversation(conversation, taskAt, from, options);
  const summary = (asked && (await options.summarize(asked))?.trim()) || "(none: not available)";
  // Stopped during the summary: the run ends now, and a summary cut short replaces nothing.
  if (options.signal?.aborted) return conversation;
  const text = compactionText(replaced.length, facts, summary);
  const compacted = withMessage(conversation, from, cut, text);
  const message = compacted.history[from]!;

  const replacedTokens = replaced.reduce((sum, m) => sum + countMessageTokens(m), 0);
  const summaryTokens = countMessageTokens(message);
  await options.ledger.recordCompaction({
    messages: replaced.length,
    tokens_before: requestTokens(conversation, options.tools),
    tokens_after: requestTokens(compacted, options.tools),
    summary: text,
  });
  options.onNotice?.(
    `context: compacted ${messages(replaced.length)} (${replacedTokens.toLocaleString("en-US")} tokens) into a ${summaryTokens.toLocaleString("en-US")}-token summary from the ledger`,
  );
  return compacted;
}

/**
 * The hash guard after compaction: reads from before it keep their hashes, and the text says so.
 * It is the same run and the same ledger, and the guard compares those hashes with the disk, so a
 * file that changed is still refused; a patch built on lines the model misremembers fails on its
 * context, it cannot land somewhere wrong. Demanding fresh reads would re-read every file after
 * each compaction and fill the context again with what it just gave up.
 */
export function compactionText(count: number, facts: string, summary: string): string {
  return [
    `${COMPACTED} the harness replaced ${messages(count, "earlier ")} of this task with this summary.]`,
    "Facts from the run's ledger (recorded by the harness, exact):",
    facts,
    "Files you read before still count as read for apply_patch (same run, same ledger). Their text is gone from this conversation: read a file again before you patch lines you no longer see.",
    "Your own summary, written just before compaction:",
    summary,
  ].join("\n");
}

const COMPACTED = "[Context compacted:";

function isCompaction(message: ChatMessage): boolean {
  return message.role === "user" && String(message.content).startsWith(COMPACTED);
}

function messages(count: number, kind = ""): string {
  return `${count} ${kind}message${count === 1 ? "" : "s"}`;
}

/** The conversation with history[from, cut) replaced by one user message. */
function withMessage(conversation: Conversation, from: number, cut: number, content: string) {
  const { history } = conversation;
  const message: ChatMessage = { role: "user", content };
  return { ...conversation, history: [...history.slice(0, from), message, ...history.slice(cut)] };
}

/**
 * Where the kept part may start: a message that is not a tool result. Tool results follow their
 * call, so cutting before any other message leaves every call with all its results, on one side.
 */
function safeStarts(history: readonly ChatMessage[], from: number): number[] {
  const starts: number[] = [];
  for (let i = from; i < history.length; i++) if (history[i]!.role !== "tool") starts.push(i);
  return starts;
}

/** The earliest safe cut whose kept messages fit in `keep` tokens; at least the newest step. */
function chooseCut(history: readonly ChatMessage[], from: number, keep: number) {
  const starts = safeStarts(history, from + 1);
  const tail = (i: number) => history.slice(i).reduce((s, m) => s + countMessageTokens(m), 0);
  return starts.find((i) => tail(i) <= keep) ?? starts.at(-1);
}

/**
 * The summary request: the task, then as much of the task's history as fits the budget (its
 * oldest messages go first, at safe cuts), then the question. Undefined when nothing fits.
 */
function summaryConversation(
  conversation: Conversation,
  taskAt: number,
  from: number,
  options: CompactionOptions,
): Conversation | undefined {
  const head = conversation.history.slice(Math.max(taskAt, 0), from);
  const question: ChatMessage = { role: "user", content: SUMMARY_REQUEST };
  for (const start of safeStarts(conversation.history, from)) {
    const history = [...head, ...conversation.history.slice(start), question];
    const asked = { ...conversation, history };
    if (requestTokens(asked, options.tools) <= options.budget) return asked;
  }
  return undefined;
}

/** The request as the threshold sees it: the task and after (earlier tasks are fitToBudget's). */
function taskTokens(
  conversation: Conversation,
  taskAt: number,
  tools: readonly ChatCompletionTool[],
) {
  const history = conversation.history.slice(Math.max(taskAt, 0));
  return requestTokens({ ...conversation, history }, tools);
}

function requestTokens(conversation: Conversation, tools: readonly ChatCompletionTool[]): number {
  return (
    countRequestTokens([conversation.system, ...conversation.history]) + countToolTokens(tools)
  );
}
