// Test setup for the Agent Loop: a scratch copy of the demo repository, the
// offline model (through the real openai SDK), and one runTask call.
import { rm } from "node:fs/promises";
import { copyDemoRepo } from "@build-agent/shared/demo-repo";
import { loadScript, startOfflineModel, type Fault } from "@build-agent/shared/offline-model";
import type { OfflineModel, Script } from "@build-agent/shared/offline-model";
import { startConversation } from "../src/context/conversation.ts";
import { createApprover, type Approver } from "../src/loop/approval.ts";
import { DEFAULT_BUDGETS, type Budgets } from "../src/loop/budgets.ts";
import { runTask, type TaskOptions, type TaskRun } from "../src/loop/run-task.ts";
import { createModelClient } from "../src/model/model-client.ts";
import type { ToolCallRequest, ToolCallResult } from "../src/tools/run-tool-call.ts";

export interface LoopFixture {
  workspace: string;
  offline: OfflineModel;
  /** Every tool call the UI was shown, with its result. */
  shown: Array<{ call: ToolCallRequest; result: ToolCallResult }>;
  run(
    overrides?: Partial<Omit<TaskOptions, "budgets">> & { budgets?: Partial<Budgets> },
  ): Promise<TaskRun>;
  close(): Promise<void>;
}

export const NO_TERMINAL: Approver = createApprover({
  yes: false,
  interactive: false,
  ask: () => Promise.reject(new Error("no terminal")),
});

/** `script` names a file in shared/scripts, or is a script written in the test. */
export async function loopFixture(
  script: string | Script,
  faults: Fault[] = [],
): Promise<LoopFixture> {
  const workspace = await copyDemoRepo("loop-test-");
  const loaded = typeof script === "string" ? loadScript(script) : script;
  const offline = await startOfflineModel({ script: loaded, faults });
  const client = createModelClient({
    baseURL: offline.baseURL,
    apiKey: offline.apiKey,
    timeoutMs: 20_000,
  });
  const shown: LoopFixture["shown"] = [];
  return {
    workspace,
    offline,
    shown,
    run: ({ budgets, ...overrides } = {}) =>
      runTask({
        workspace,
        task: "The total with a coupon is wrong. Find the bug and fix it.",
        conversation: startConversation("You are a test agent."),
        client,
        model: offline.model,
        maxRetries: 2,
        contextTokens: 100_000,
        approver: NO_TERMINAL,
        signal: new AbortController().signal,
        events: { onToolCall: (call, result) => shown.push({ call, result }) },
        ...overrides,
        budgets: { ...DEFAULT_BUDGETS, ...budgets },
      }),
    close: async () => {
      await offline.close();
      await rm(workspace, { recursive: true, force: true });
    },
  };
}

/** Each tool call in the conversation, with the number of results it got (must be 1). */
export function resultsPerCall(run: TaskRun): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const message of run.outcome.conversation.history) {
    if (message.role === "assistant") {
      for (const call of message.tool_calls ?? []) counts[call.id] = 0;
    }
    if (message.role === "tool")
      counts[message.tool_call_id] = (counts[message.tool_call_id] ?? 0) + 1;
  }
  return counts;
}
