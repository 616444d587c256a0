import type OpenAI from "openai";
import { addMessages, type Conversation } from "../context/conversation.ts";
import { RunLedger } from "../ledger/run-ledger.ts";
import type { NoteMeta } from "../notes/note.ts";
import { NoteStore } from "../notes/note-store.ts";
import type { AnyTool } from "../tools/define-tool.ts";
import { runAgentLoop, type LoopEvents, type LoopOutcome } from "./agent-loop.ts";
import { agentTools } from "./agent-tools.ts";
import type { Approver } from "./approval.ts";
import { BudgetTracker, type Budgets } from "./budgets.ts";
import { createToolRunner } from "./tool-runner.ts";

export interface TaskOptions {
  workspace: string;
  task: string;
  /** The conversation before this task: the system prompt, and earlier tasks in a session. */
  conversation: Conversation;
  client: OpenAI;
  model: string;
  maxRetries: number;
  contextTokens: number;
  budgets: Budgets;
  approver: Approver;
  signal: AbortSignal;
  events: LoopEvents;
  /** Replaces the agent's tools (tests use a slow tool to interrupt). */
  tools?: (approver: Approver) => AnyTool[];
}

export interface TaskRun {
  outcome: LoopOutcome;
  ledger: RunLedger;
  /** Notes created during the run, by the harness or by the agent. */
  notes: NoteMeta[];
}

/**
 * One task is one run: its own ledger in .agent/runs/, its own budgets, and
 * a run_end that says how it ended, whatever happens in between (done, out
 * of budget, model error, Ctrl-C).
 */
export async function runTask(options: TaskOptions): Promise<TaskRun> {
  const { workspace, task } = options;
  const ledger = await RunLedger.open(workspace, { task, model: options.model });
  const notes = new NoteStore(workspace);
  const before = new Set((await notes.list()).map((note) => note.id));
  const tools = (options.tools ?? agentTools)(options.approver);
  let outcome: LoopOutcome | undefined;
  try {
    outcome = await runAgentLoop({
      client: options.client,
      model: options.model,
      maxRetries: options.maxRetries,
      contextTokens: options.contextTokens,
      conversation: addMessages(options.conversation, { role: "user", content: task }),
      tools,
      runCall: createToolRunner({ tools, cwd: workspace, ledger, notes }),
      ledger,
      budgets: new BudgetTracker(options.budgets),
      signal: options.signal,
      events: options.events,
    });
  } finally {
    // Also when the loop threw: a ledger without run_end would look like a crash.
    await ledger.finish(outcome?.reason ?? "error");
  }
  const written = (await notes.list()).filter((note) => !before.has(note.id));
  return { outcome, ledger, notes: written };
}
