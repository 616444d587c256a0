// Exercise "An answer that says nothing": when the model ends with neither tool calls nor text,
// the loop asks once for the final answer (a user message) and goes round again; a second empty
// answer stops the run with reason "error". The extra pass counts against the step limit.
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

interface Message {
  role: string;
  content?: unknown;
}
interface Request {
  messages: Message[];
}
interface Outcome {
  reason: string;
  answer: string | null;
  message: string | null;
}
interface LoopModule {
  runAgentLoop(options: Record<string, unknown>): Promise<Outcome>;
}
interface ConversationModule {
  startConversation(system?: string): unknown;
  addMessages(conversation: unknown, ...messages: Message[]): unknown;
}

/**
 * A stand-in for the SDK client that streams one reply per request: an empty message (no text,
 * no tool calls) for each "" in `replies`, the text otherwise; past the end, the last reply again.
 */
function fakeClient(replies: string[]) {
  const requests: Request[] = [];
  const create = async (request: Request) => {
    requests.push(structuredClone(request));
    const n = requests.length;
    const text = replies[Math.min(n, replies.length) - 1] ?? "";
    const delta = text === "" ? { role: "assistant" } : { role: "assistant", content: text };
    const chunks = [
      { id: `c${n}`, choices: [{ index: 0, delta, finish_reason: null }] },
      {
        id: `c${n}`,
        choices: [{ index: 0, delta: {}, finish_reason: "stop" }],
        usage: { prompt_tokens: 10, completion_tokens: 1, total_tokens: 11 },
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
  const { startConversation, addMessages } = await load<ConversationModule>(
    "src/context/conversation.ts",
  );

  const run = async (replies: string[], maxSteps = 10) => {
    const { client, requests } = fakeClient(replies);
    const outcome = await runAgentLoop({
      client,
      model: "fake",
      maxRetries: 0,
      contextTokens: 100_000,
      conversation: addMessages(startConversation("test"), { role: "user", content: "go" }),
      tools: [],
      runCall: async (call: { id: string }) => ({ tool_call_id: call.id, ok: true, content: "" }),
      ledger: { recordModelCall: async () => {} },
      maxSteps,
      signal: new AbortController().signal,
    });
    return { outcome, requests };
  };
  const hasText = (message: Message) =>
    typeof message.content === "string" && message.content.trim() !== "";

  // Empty once, then an answer: the loop asks, and the run ends with the real answer.
  const once = await run(["", "I fixed the coupon."]);
  assert.equal(
    once.requests.length,
    2,
    `after an empty answer the loop should ask the model once more (it made ${once.requests.length} call(s))`,
  );
  const second = once.requests[1]!.messages;
  assert.equal(
    second.at(-1)?.role,
    "user",
    "the second call should end with a user message that asks for the final answer",
  );
  assert.ok(hasText(second.at(-1)!), "that user message should say what is wanted");
  assert.ok(
    second.every((message) => message.role !== "assistant" || hasText(message)),
    "an assistant message with neither text nor tool calls should not be sent back to the model",
  );
  assert.equal(once.outcome.reason, "done", "an answer on the second try ends the run as done");
  assert.equal(once.outcome.answer, "I fixed the coupon.");

  // Empty twice: stop with an error that says so, and ask only once.
  const twice = await run([""]);
  assert.equal(
    twice.requests.length,
    2,
    `the loop should ask only once (it made ${twice.requests.length} model calls)`,
  );
  assert.equal(
    twice.outcome.reason,
    "error",
    `two empty answers should end the run as "error" (got "${twice.outcome.reason}")`,
  );
  assert.match(
    twice.outcome.message ?? "",
    /answer/i,
    "the stop message should say that the model gave no answer",
  );

  // The extra pass is a step like any other: with a limit of one, the budget ends the run.
  const tight = await run([""], 1);
  assert.equal(
    tight.outcome.reason,
    "budget",
    `with --max-steps 1 the question for an answer has no step left: "budget" (got "${tight.outcome.reason}")`,
  );
}
