import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import {
  compactIfNeeded,
  compactionText,
  COMPACT_AT,
  SUMMARY_PHRASE,
  type CompactionOptions,
} from "../src/compaction/compact.ts";
import { fitToBudget } from "../src/context/context-budget.ts";
import type { ChatMessage, Conversation } from "../src/context/conversation.ts";
import { countMessageTokens, countRequestTokens } from "../src/context/token-counter.ts";
import { RunLedger } from "../src/ledger/run-ledger.ts";

const SYSTEM = {
  role: "system",
  content: "You are a test agent. AGENTS.md: run the check.",
} as const;
const SUMMARY = "I read the logs; the coupon comes off after tax. Next: patch total().";

/** A small deterministic random source, so a failing history can be replayed from its seed. */
function random(seed: number) {
  let state = seed >>> 0; // mulberry32
  return (n: number) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) % n;
  };
}

/** An earlier task, then the task, then steps: tool calls with their results, reports, text. */
function randomHistory(seed: number): { history: ChatMessage[]; task: ChatMessage } {
  const pick = random(seed);
  const text = (words: number) => Array.from({ length: words }, (_, i) => `word${i}`).join(" ");
  const history: ChatMessage[] = [];
  if (pick(2) === 0) {
    history.push(
      { role: "user", content: "An earlier task." },
      { role: "assistant", content: "Done." },
    );
  }
  const task: ChatMessage = { role: "user", content: `The task, seed ${seed}.` };
  history.push(task);
  const steps = 2 + pick(25);
  for (let s = 0; s < steps; s++) {
    const kind = pick(6);
    if (kind === 0) {
      history.push({ role: "user", content: `apply_patch (text patch ${s}): ${text(pick(40))}` });
      continue;
    }
    const calls = Array.from({ length: pick(4) }, (_, c) => ({
      id: `call_${s}_${c}`,
      type: "function" as const,
      function: { name: "read_file", arguments: `{"path":"f${s}"}` },
    }));
    history.push({
      role: "assistant",
      content: text(pick(20)),
      ...(calls.length > 0 && { tool_calls: calls }),
    });
    for (const call of calls) {
      history.push({ role: "tool", tool_call_id: call.id, content: text(20 + pick(300)) });
    }
  }
  return { history, task };
}

/** The task, then eight reads of about 200 tokens each: 2 000 tokens in all. */
function longHistory(): { history: ChatMessage[]; task: ChatMessage } {
  const task: ChatMessage = { role: "user", content: "The task." };
  const history: ChatMessage[] = [task];
  for (let s = 0; s < 8; s++) {
    const call = {
      id: `call_${s}`,
      type: "function" as const,
      function: { name: "read_file", arguments: "{}" },
    };
    history.push({ role: "assistant", content: `Reading ${s}.`, tool_calls: [call] });
    history.push({ role: "tool", tool_call_id: call.id, content: "lorem ipsum ".repeat(100) });
  }
  return { history, task };
}

/** Every tool result answers a call of an earlier assistant message, and every call has one. */
function pairingProblems(history: readonly ChatMessage[]): string[] {
  const open = new Set<string>();
  const problems: string[] = [];
  for (const message of history) {
    if (message.role === "assistant") {
      if (open.size > 0) problems.push(`calls without results: ${[...open].join(", ")}`);
      for (const call of message.tool_calls ?? []) open.add(call.id);
    } else if (message.role === "tool") {
      if (!open.delete(message.tool_call_id)) problems.push(`orphan ${message.tool_call_id}`);
    } else if (open.size > 0) problems.push(`calls without results: ${[...open].join(", ")}`);
  }
  return problems;
}

function fakeLedger() {
  const recorded: unknown[] = [];
  return {
    recorded,
    ledger: {
      events: () =>
        [
          { type: "run_start", time: "t", run_id: "r", task: "The task.", model: "m", cwd: "/w" },
        ] as const,
      recordCompaction: async (fields: unknown) => void recorded.push(fields),
    } as unknown as CompactionOptions["ledger"],
  };
}

describe("compaction", () => {
  test("over many histories and budgets, keeps every tool call with its results, the system prompt, the task, and the newest step; and fits", async () => {
    let compactions = 0;
    let summaries = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const { history, task } = randomHistory(seed);
      const conversation: Conversation = { system: SYSTEM, history };
      const budget = 1_500 + random(seed * 7)(6_000);
      const asked: Conversation[] = [];
      const compacted = await compactIfNeeded(conversation, {
        task,
        budget,
        tools: [],
        ledger: fakeLedger().ledger,
        summarize: async (request) => (asked.push(request), SUMMARY),
      });
      const where = `seed ${seed}, budget ${budget}`;
      expect(pairingProblems(compacted.history), where).toEqual([]);
      expect(compacted.system, where).toBe(SYSTEM);
      const at = history.indexOf(task);
      expect(compacted.history.slice(0, at + 1), where).toEqual(history.slice(0, at + 1));
      if (compacted === conversation) continue;
      compactions += 1;
      // The summary request (when one fits): well formed, within the budget, ending with the
      // fixed question.
      for (const request of asked) {
        expect(pairingProblems(request.history), where).toEqual([]);
        expect(countRequestTokens([SYSTEM, ...request.history]), where).toBeLessThanOrEqual(budget);
        expect(request.history.at(-1)!.content, where).toContain(SUMMARY_PHRASE);
        expect(request.history[0], where).toBe(task);
      }
      summaries += asked.length;
      // One message replaced the oldest part of the task; the rest is the old tail, verbatim.
      const message = compacted.history[at + 1]!;
      expect(message.role, where).toBe("user");
      expect(message.content, where).toMatch(/^\[Context compacted: the harness replaced \d+ /);
      const tail = compacted.history.slice(at + 2);
      expect(tail.length, where).toBeGreaterThan(0);
      expect(tail, where).toEqual(history.slice(history.length - tail.length));
      expect(tail[0]!.role, where).not.toBe("tool");
      // When the newest step alone is small, the whole request fits with nothing dropped.
      if (tail.reduce((sum, m) => sum + countMessageTokens(m), 0) <= budget / 4) {
        const fitted = fitToBudget(compacted, budget);
        expect(fitted.dropped.messages, where).toBe(0);
      }
    }
    expect(compactions).toBeGreaterThan(100);
    expect(summaries).toBeGreaterThan(100);
  });

  test("below the threshold nothing changes and the model is not asked", async () => {
    const { history, task } = randomHistory(3);
    const conversation: Conversation = { system: SYSTEM, history };
    const tokens = countRequestTokens([SYSTEM, ...history]);
    let asked = 0;
    const same = await compactIfNeeded(conversation, {
      task,
      budget: Math.ceil(tokens / COMPACT_AT) + 1,
      tools: [],
      ledger: fakeLedger().ledger,
      summarize: async () => (asked++, SUMMARY),
    });
    expect(same).toBe(conversation);
    expect(asked).toBe(0);
  });

  test("the message holds the ledger's facts, the guard's rule and the model's summary", async () => {
    const { history, task } = longHistory();
    const compacted = await compactIfNeeded(
      { system: SYSTEM, history },
      {
        task,
        budget: 2_400,
        tools: [],
        ledger: fakeLedger().ledger,
        summarize: async () => SUMMARY,
      },
    );
    const text = compacted.history[history.indexOf(task) + 1]!.content as string;
    expect(text.split("\n").slice(1)).toEqual([
      "Facts from the run's ledger (recorded by the harness, exact):",
      "Task: The task.",
      "Files you read before still count as read for apply_patch (same run, same ledger). Their text is gone from this conversation: read a file again before you patch lines you no longer see.",
      "Your own summary, written just before compaction:",
      SUMMARY,
    ]);
  });

  test("without a summary (the call failed) it compacts with the facts alone", async () => {
    const { history, task } = longHistory();
    const compacted = await compactIfNeeded(
      { system: SYSTEM, history },
      {
        task,
        budget: 2_400,
        tools: [],
        ledger: fakeLedger().ledger,
        summarize: async () => undefined,
      },
    );
    const text = compacted.history[history.indexOf(task) + 1]!.content as string;
    expect(
      text.endsWith("Your own summary, written just before compaction:\n(none: not available)"),
    ).toBe(true);
  });

  test("does not compact again when that would replace only the last compaction: the newest step is too big", async () => {
    const task: ChatMessage = { role: "user", content: "The task." };
    const earlier = {
      role: "user",
      content: compactionText(4, "Task: The task.", SUMMARY),
    } as const;
    const call = {
      id: "c",
      type: "function" as const,
      function: { name: "read_file", arguments: "{}" },
    };
    const history: ChatMessage[] = [
      task,
      earlier,
      { role: "assistant", content: "Reading.", tool_calls: [call] },
      { role: "tool", tool_call_id: "c", content: "lorem ipsum ".repeat(300) },
    ];
    const conversation: Conversation = { system: SYSTEM, history };
    let asked = 0;
    const { recorded, ledger } = fakeLedger();
    const same = await compactIfNeeded(conversation, {
      task,
      // Past 75%, and the newest step alone is past the 25% kept.
      budget: Math.ceil(countRequestTokens([SYSTEM, ...history]) / 0.8),
      tools: [],
      ledger,
      summarize: async () => (asked++, SUMMARY),
    });
    expect(same).toBe(conversation);
    expect(asked).toBe(0);
    expect(recorded).toEqual([]);
  });

  test("does not compact when the request would stay past 75% anyway: a system prompt that big", async () => {
    const { history, task } = longHistory();
    const system = { role: "system", content: "Rules. ".repeat(900) } as const;
    const conversation: Conversation = { system, history };
    let asked = 0;
    const same = await compactIfNeeded(conversation, {
      task,
      budget: countRequestTokens([system]) + 500,
      tools: [],
      ledger: fakeLedger().ledger,
      summarize: async () => (asked++, SUMMARY),
    });
    expect(same).toBe(conversation);
    expect(asked).toBe(0);
  });

  test("stopped during the summary (Ctrl-C, the time budget): nothing is compacted", async () => {
    const { history, task } = longHistory();
    const conversation: Conversation = { system: SYSTEM, history };
    const controller = new AbortController();
    const { recorded, ledger } = fakeLedger();
    const lines: string[] = [];
    const same = await compactIfNeeded(conversation, {
      task,
      budget: 2_400,
      tools: [],
      ledger,
      signal: controller.signal,
      summarize: async () => (controller.abort(), undefined),
      onNotice: (line) => lines.push(line),
    });
    expect(same).toBe(conversation);
    expect(recorded).toEqual([]);
    expect(lines).toEqual([]);
  });

  test("one message replaced is one message, in the text and in the line", async () => {
    const task: ChatMessage = { role: "user", content: "The task." };
    const history: ChatMessage[] = [
      task,
      { role: "user", content: `apply_patch (text patch 1): ${"lorem ipsum ".repeat(300)}` },
      { role: "assistant", content: "Patched." },
    ];
    const lines: string[] = [];
    const compacted = await compactIfNeeded(
      { system: SYSTEM, history },
      {
        task,
        budget: Math.ceil(countRequestTokens([SYSTEM, ...history]) / 0.8),
        tools: [],
        ledger: fakeLedger().ledger,
        summarize: async () => SUMMARY,
        onNotice: (line) => lines.push(line),
      },
    );
    expect(compacted.history[1]!.content).toMatch(
      /^\[Context compacted: the harness replaced 1 earlier message of this task with this summary\.\]\n/,
    );
    expect(lines[0]).toMatch(/^context: compacted 1 message \(/);
  });

  describe("with a real ledger", () => {
    let workspace: string | undefined;
    afterEach(async () => {
      if (workspace) await rm(workspace, { recursive: true, force: true });
    });

    test("records a compaction event and tells the person in one line", async () => {
      workspace = await mkdtemp(join(tmpdir(), "compaction-"));
      const ledger = await RunLedger.open(workspace, { task: "The task.", model: "m" });
      const { history, task } = longHistory();
      const lines: string[] = [];
      const compacted = await compactIfNeeded(
        { system: SYSTEM, history },
        {
          task,
          budget: 2_400,
          tools: [],
          ledger,
          summarize: async () => SUMMARY,
          onNotice: (l) => lines.push(l),
        },
      );
      await ledger.finish("done");
      const events = (await RunLedger.load(workspace, ledger.runId)).events();
      const event = events.find((e) => e.type === "compaction");
      const replaced = history.length - compacted.history.length + 1;
      expect(event).toMatchObject({
        messages: replaced,
        tokens_before: countRequestTokens([SYSTEM, ...history]),
        tokens_after: countRequestTokens([SYSTEM, ...compacted.history]),
        summary: compacted.history[history.indexOf(task) + 1]!.content,
      });
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        new RegExp(
          `^context: compacted ${replaced} messages \\([\\d,]+ tokens\\) into a \\d+-token summary from the ledger$`,
        ),
      );
    });
  });
});
