// Exercise "A last call for a summary": when one model call is left, the loop asks for a final
// answer and sends no tools; the run still ends as a budget stop, with the model's answer.
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

interface Message {
  role: string;
  content?: unknown;
}
interface Request {
  messages: Message[];
  tools?: unknown[];
}
interface Outcome {
  reason: string;
  answer: string | null;
  message: string | null;
}
interface LoopModule {
  runAgentLoop(options: Record<string, unknown>): Promise<Outcome>;
}
interface Budgets {
  maxSteps: number;
  maxTokens: number;
  maxTimeMs: number;
}
interface BudgetsModule {
  BudgetTracker: new (budgets: Budgets) => object;
  DEFAULT_BUDGETS: Budgets;
}
interface ConversationModule {
  startConversation(system?: string): unknown;
  addMessages(conversation: unknown, ...messages: Message[]): unknown;
}

/**
 * A stand-in for the SDK client. Offered tools, it calls read_file (a model that never stops
 * looking) until `answerAfter` requests have been made; offered none, it can only answer.
 */
function fakeClient(answerAfter: number) {
  const requests: Request[] = [];
  const create = async (request: Request) => {
    requests.push(request);
    const n = requests.length;
    const calling = (request.tools?.length ?? 0) > 0 && n <= answerAfter;
    const delta = calling
      ? {
          role: "assistant",
          tool_calls: [
            {
              index: 0,
              id: `call-${n}`,
              type: "function",
              function: { name: "read_file", arguments: '{"path":"a.txt"}' },
            },
          ],
        }
      : { role: "assistant", content: "summary: I read a.txt" };
    const chunks = [
      { id: `c${n}`, choices: [{ index: 0, delta, finish_reason: null }] },
      {
        id: `c${n}`,
        choices: [{ index: 0, delta: {}, finish_reason: calling ? "tool_calls" : "stop" }],
        usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
      },
    ];
    return (async function* () {
      yield* chunks;
    })();
  };
  return {
    client: {
      baseURL: "http://fake.invalid/v1",
      timeout: 5_000,
      chat: { completions: { create } },
    },
    requests,
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
  const { readFileTool } = await load<{ readFileTool: unknown }>("src/tools/read-file.ts");

  const run = async (maxSteps: number, answerAfter: number) => {
    const { client, requests } = fakeClient(answerAfter);
    const outcome = await runAgentLoop({
      client,
      model: "fake",
      maxRetries: 0,
      contextTokens: 100_000,
      conversation: addMessages(startConversation("test"), { role: "user", content: "go" }),
      tools: [readFileTool],
      runCall: async (call: { id: string }) => ({ tool_call_id: call.id, ok: true, content: "a" }),
      ledger: { recordModelCall: async () => {} },
      budgets: new BudgetTracker({ ...DEFAULT_BUDGETS, maxSteps }),
      signal: new AbortController().signal,
    });
    return { outcome, requests };
  };
  const offersTools = (request: Request | undefined) => (request?.tools?.length ?? 0) > 0;

  // A model that would look forever, with 3 steps: the third call is the last, and asks for a summary.
  const { outcome, requests } = await run(3, 100);
  assert.equal(
    requests.length,
    3,
    `a step budget of 3 allows 3 model calls (got ${requests.length})`,
  );
  assert.ok(
    offersTools(requests[0]) && offersTools(requests[1]),
    "the calls before the last one still offer the tools",
  );
  assert.ok(
    !offersTools(requests[2]),
    "the last call the step budget allows should offer no tools, so the model can only answer",
  );
  const lastMessage = requests[2]!.messages.at(-1);
  assert.equal(
    lastMessage?.role,
    "user",
    "the last call should end with a user message that asks the model for its final answer",
  );
  assert.equal(
    outcome.reason,
    "budget",
    `the run was stopped by its step budget and should say so (got "${outcome.reason}")`,
  );
  assert.equal(
    outcome.answer,
    "summary: I read a.txt",
    "the model's last answer should be in LoopOutcome.answer",
  );
  assert.match(
    outcome.message ?? "",
    /step budget used up/,
    "the message should still be the step budget's",
  );

  // A run that finishes on its own is not touched: no extra message, tools on every call.
  const early = await run(10, 1);
  assert.equal(early.outcome.reason, "done", "a run that answers in time ends as done");
  assert.ok(offersTools(early.requests.at(-1)), "only the last call of the budget drops the tools");
  assert.notEqual(
    early.requests.at(-1)?.messages.at(-1)?.role,
    "user",
    "a run far from its budget gets no extra user message",
  );
}
