// Compaction inside the loop: the summary is a real model call, so it counts against the run's
// budgets, it can be stopped by Ctrl-C, and it can fail and be retried like any other.
import OpenAI from "openai";
import {
  parseScript,
  startOfflineModel,
  type OfflineModel,
} from "@build-agent/shared/offline-model";
import { afterEach, describe, expect, test } from "vitest";
import { z } from "zod";
import { SUMMARY_PHRASE } from "../src/compaction/compact.ts";
import { addMessages, startConversation } from "../src/context/conversation.ts";
import type { CompactionEvent } from "../src/ledger/ledger-events.ts";
import { runAgentLoop } from "../src/loop/agent-loop.ts";
import { BudgetTracker, DEFAULT_BUDGETS, type Budgets } from "../src/loop/budgets.ts";
import { defineTool } from "../src/tools/define-tool.ts";
import { runToolCall } from "../src/tools/run-tool-call.ts";

/** A model that reads the log again at every step, as a long run reads file after file. */
const READS_FOREVER = parseScript(
  {
    name: "reads-forever",
    description: "Scripted test (offline model, no AI): reads the log at every step.",
    steps: [
      {
        reply: {
          content: "Reading the log.",
          toolCalls: [{ id: "call_log", name: "read_log", arguments: {} }],
        },
      },
    ],
    repeatLastStep: true,
  },
  "compaction-loop.test.ts",
);

/** About 450 tokens per result: the 2,000-token budget is past 75% after three reads. */
const readLog = defineTool({
  name: "read_log",
  description: "Reads the log.",
  effect: "read",
  schema: z.object({}),
  execute: async () => ({ ok: true, content: "lorem ipsum ".repeat(150) }),
});

/** The budgets, with the tokens each model call spent, in order. */
class WatchedBudgets extends BudgetTracker {
  readonly calls: number[] = [];
  override recordModelCall(tokens: number): void {
    this.calls.push(tokens);
    super.recordModelCall(tokens);
  }
}

let offline: OfflineModel | undefined;
afterEach(async () => {
  await offline?.close();
  offline = undefined;
});

const isSummary = (body: string | undefined) => body?.includes(SUMMARY_PHRASE) ?? false;

/**
 * One run of READS_FOREVER until a budget stops it. `onSummary` sees each summary request before
 * it is sent, and may answer it instead of the model.
 */
async function longRun(options: {
  budgets: Partial<Budgets>;
  onSummary?: (abort: () => void) => Response | undefined;
}) {
  offline = await startOfflineModel({ script: READS_FOREVER });
  const controller = new AbortController();
  const client = new OpenAI({
    baseURL: offline.baseURL,
    apiKey: offline.apiKey,
    timeout: 20_000,
    maxRetries: 0,
    fetch: async (url: string | URL | Request, init?: RequestInit) => {
      const answer = isSummary(init?.body as string)
        ? options.onSummary?.(() => controller.abort())
        : undefined;
      return answer ?? fetch(url, init);
    },
  });
  const compactions: Array<Omit<CompactionEvent, "type" | "time">> = [];
  const notices: string[] = [];
  const budgets = new WatchedBudgets({ ...DEFAULT_BUDGETS, ...options.budgets });
  const outcome = await runAgentLoop({
    client,
    model: offline.model,
    maxRetries: 2,
    contextTokens: 2_000,
    conversation: addMessages(startConversation("test"), {
      role: "user",
      content: "Read the log.",
    }),
    tools: [readLog],
    runCall: (call, signal) => runToolCall([readLog], call, { cwd: "/", signal }),
    ledger: {
      recordModelCall: async () => {},
      plan: () => undefined,
      recordPlanReminder: async () => {},
      events: () => [],
    },
    compactFrom: {
      events: () => [
        { type: "run_start", time: "t", run_id: "r", task: "Read the log.", model: "m", cwd: "/" },
      ],
      recordCompaction: async (fields) => void compactions.push(fields),
    },
    budgets,
    signal: controller.signal,
    events: { onNotice: (line) => notices.push(line) },
  });
  const requests = offline.requests;
  const summaryAt = requests.findIndex((r) => isSummary(JSON.stringify(r.messages.at(-1))));
  return { outcome, requests, summaryAt, compactions, notices, calls: budgets.calls };
}

describe("compaction in the loop", () => {
  test("with one step left, the summary is not asked for: the run makes at most --max-steps calls", async () => {
    const probe = await longRun({ budgets: { maxSteps: 8 } });
    expect(probe.summaryAt).toBeGreaterThan(0);
    await offline?.close();

    // The next run compacts when its last step is all that is left.
    const run = await longRun({ budgets: { maxSteps: probe.summaryAt + 1 } });
    expect(run.requests).toHaveLength(probe.summaryAt + 1);
    expect(run.summaryAt).toBe(-1);
    expect(run.compactions).toHaveLength(1);
    expect(run.compactions[0]!.summary).toMatch(/\n\(none: not available\)$/);
    expect(run.outcome).toMatchObject({
      reason: "budget",
      message: `stopped: step budget used up: ${probe.summaryAt + 1} of ${probe.summaryAt + 1} model calls (raise it with --max-steps)`,
    });
  });

  test("a summary that uses up the token budget stops the run before the next request", async () => {
    const probe = await longRun({ budgets: { maxSteps: 8 } });
    await offline?.close();
    const before = probe.calls.slice(0, probe.summaryAt).reduce((sum, t) => sum + t, 0);

    const run = await longRun({ budgets: { maxSteps: 8, maxTokens: before + 1 } });
    expect(run.summaryAt).toBe(probe.summaryAt);
    expect(run.requests).toHaveLength(probe.summaryAt + 1); // the summary was the last call
    expect(run.outcome.reason).toBe("budget");
    expect(run.outcome.message).toMatch(/^stopped: token budget used up: \d+ of \d+ tokens/);
  });

  test("the summary request offers no tool call (tool_choice none), and its retries are shown", async () => {
    let failures = 1;
    const run = await longRun({
      budgets: { maxSteps: 8 },
      onSummary: () =>
        failures-- > 0
          ? new Response(JSON.stringify({ error: { message: "slow down", type: "requests" } }), {
              status: 429,
              headers: { "content-type": "application/json", "retry-after": "0" },
            })
          : undefined,
    });
    const asked = run.requests[run.summaryAt]!;
    expect(asked.tools?.map((tool) => tool.function?.name)).toEqual(["read_log"]);
    expect((asked as { tool_choice?: unknown }).tool_choice).toBe("none");
    expect(run.notices).toContain("model call failed, retrying in 0.0 s (retry 1 of 2)");
    expect(run.compactions[0]!.summary).toMatch(/\nReading the log\.$/);
  });

  test("Ctrl-C during the summary: nothing is compacted, and the run stops as interrupted", async () => {
    let asked = 0;
    const run = await longRun({
      budgets: { maxSteps: 8 },
      onSummary: (abort) => {
        asked += 1;
        abort();
        return undefined;
      },
    });
    expect(asked).toBe(1);
    expect(run.compactions).toEqual([]);
    expect(run.notices.filter((line) => line.startsWith("context: compacted"))).toEqual([]);
    expect(run.outcome).toMatchObject({
      reason: "aborted",
      message: "stopped: you pressed Ctrl-C",
    });
    const texts = run.outcome.conversation.history.map((m) => String(m.content));
    expect(texts.some((text) => text.startsWith("[Context compacted"))).toBe(false);
  });
});
