// Exercise "Stop a loop that repeats itself": three identical failing tool calls in a row end the
// run with the stop reason "repeating" and a message that names the call; anything else goes on.
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

interface Call {
  id: string;
  function: { name: string; arguments: string };
}
interface Result {
  tool_call_id: string;
  ok: boolean;
  content: string;
  code?: string;
}
interface Outcome {
  reason: string;
  answer: string | null;
  message: string | null;
  conversation: { history: Array<{ role: string }> };
}
interface LoopModule {
  runAgentLoop(options: Record<string, unknown>): Promise<Outcome>;
}
interface BudgetsModule {
  BudgetTracker: new (budgets: { maxSteps: number; maxTokens: number; maxTimeMs: number }) => {
    steps: number;
  };
  DEFAULT_BUDGETS: { maxSteps: number; maxTokens: number; maxTimeMs: number };
}
interface ConversationModule {
  startConversation(system?: string): unknown;
  addMessages(
    conversation: unknown,
    ...messages: Array<{ role: string; content: string }>
  ): unknown;
}

/** One streamed answer as the OpenAI SDK yields it: a tool call, or text. */
function chunks(turn: { call?: { name: string; arguments: string }; text?: string }, n: number) {
  const delta = turn.call
    ? {
        role: "assistant",
        tool_calls: [
          {
            index: 0,
            id: `call-${n}`,
            type: "function",
            function: { name: turn.call.name, arguments: turn.call.arguments },
          },
        ],
      }
    : { role: "assistant", content: turn.text ?? "" };
  return [
    { id: `c${n}`, choices: [{ index: 0, delta, finish_reason: null }] },
    {
      id: `c${n}`,
      choices: [{ index: 0, delta: {}, finish_reason: turn.call ? "tool_calls" : "stop" }],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    },
  ];
}

/** A stand-in for the SDK client: each request gets the next scripted turn. */
function fakeClient(turns: Array<{ call?: { name: string; arguments: string }; text?: string }>) {
  let n = 0;
  return {
    baseURL: "http://fake.invalid/v1",
    timeout: 5_000,
    chat: {
      completions: {
        create: async () => {
          const turn = turns[Math.min(n, turns.length - 1)]!;
          const list = chunks(turn, ++n);
          return (async function* () {
            yield* list;
          })();
        },
      },
    },
    requests: () => n,
  };
}

export default async function check(chapterDir: string): Promise<void> {
  const load = async <T>(path: string) =>
    (await import(pathToFileURL(join(chapterDir, path)).href)) as T;
  const { runAgentLoop } = await load<LoopModule>("src/loop/agent-loop.ts");
  const { BudgetTracker, DEFAULT_BUDGETS } = await load<BudgetsModule>("src/loop/budgets.ts");
  const { startConversation, addMessages } = await load<ConversationModule>(
    "src/context/conversation.ts",
  );

  const run = async (
    turns: Array<{ call?: { name: string; arguments: string }; text?: string }>,
    runCall: (call: Call) => Result,
  ) => {
    const client = fakeClient(turns);
    const outcome = await runAgentLoop({
      client,
      model: "fake",
      maxRetries: 0,
      contextTokens: 100_000,
      conversation: addMessages(startConversation("test"), { role: "user", content: "go" }),
      tools: [],
      runCall: async (call: Call) => runCall(call),
      ledger: { recordModelCall: async () => {} },
      budgets: new BudgetTracker({ ...DEFAULT_BUDGETS, maxSteps: 10 }),
      signal: new AbortController().signal,
    });
    return { outcome, requests: client.requests() };
  };
  const missing = (call: Call): Result => ({
    tool_call_id: call.id,
    ok: false,
    content: "Error [not_found]: no such file",
    code: "not_found",
  });

  // The same failing call, again and again: stopped on the third, long before 10 steps.
  const same = { call: { name: "read_file", arguments: '{"path":"missing.txt"}' } };
  const stuck = await run([same], missing);
  assert.equal(
    stuck.outcome.reason,
    "repeating",
    `three identical failing calls in a row should stop the run with reason "repeating" (got "${stuck.outcome.reason}" after ${stuck.requests} model calls)`,
  );
  assert.equal(stuck.requests, 3, "the run should stop right after the third identical failure");
  assert.match(
    stuck.outcome.message ?? "",
    /read_file/,
    "the stop message should name the call that keeps failing",
  );
  const last = stuck.outcome.conversation.history.at(-1);
  assert.equal(
    last?.role,
    "tool",
    "stop after the results are in the conversation: every tool call keeps its result",
  );

  // Failing calls that differ are the model trying things: not a repeat.
  let path = 0;
  const varied = await run(
    [
      ...Array.from({ length: 4 }, () => ({
        call: { name: "read_file", arguments: `{"path":"missing-${path++}.txt"}` },
      })),
      { text: "done" },
    ],
    missing,
  );
  assert.equal(
    varied.outcome.reason,
    "done",
    `failing calls with different arguments are not a repeat (got "${varied.outcome.reason}")`,
  );

  // A success in between resets the count.
  let count = 0;
  const reset = await run([same, same, same, same, { text: "done" }], (call) =>
    ++count === 3 ? { tool_call_id: call.id, ok: true, content: "ok" } : missing(call),
  );
  assert.equal(
    reset.outcome.reason,
    "done",
    `a call that succeeds in between resets the count (got "${reset.outcome.reason}")`,
  );
}
