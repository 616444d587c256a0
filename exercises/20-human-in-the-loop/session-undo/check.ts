// Exercise "/undo in the session": typed at the > prompt, /undo takes back the last task's run
// (it is not sent to the model as a task), says so, and tells the model in the conversation.
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Readable } from "node:stream";
import { pathToFileURL } from "node:url";

interface Message {
  role: string;
  content?: unknown;
}
interface Budgets {
  maxSteps: number;
  maxTokens: number;
  maxTimeMs: number;
}

const PATCH = "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+ONE\n*** End Patch\n";

/**
 * A stand-in for the SDK client: the first task reads a.txt, patches it and answers; every later
 * request is recorded and answered with "ok".
 */
function fakeClient() {
  const requests: Message[][] = [];
  const turn = (n: number): { call?: { name: string; arguments: string }; text?: string } => {
    if (n === 1) return { call: { name: "read_file", arguments: '{"path":"a.txt"}' } };
    if (n === 2)
      return { call: { name: "apply_patch", arguments: JSON.stringify({ patch: PATCH }) } };
    return { text: n === 3 ? "Changed a.txt." : "ok" };
  };
  const create = async (request: { messages: Message[] }) => {
    requests.push(request.messages);
    const n = requests.length;
    const { call, text } = turn(n);
    const delta = call
      ? {
          role: "assistant",
          tool_calls: [{ index: 0, id: `call-${n}`, type: "function", function: call }],
        }
      : { role: "assistant", content: text };
    const chunks = [
      { id: `c${n}`, choices: [{ index: 0, delta, finish_reason: null }] },
      {
        id: `c${n}`,
        choices: [{ index: 0, delta: {}, finish_reason: call ? "tool_calls" : "stop" }],
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
  const { runSession } = await load<{
    runSession(options: Record<string, unknown>): Promise<number>;
  }>("src/loop/interactive.ts");
  const { TerminalUi } = await load<{
    TerminalUi: new (
      out: { write(t: string): unknown },
      err: { write(t: string): unknown },
    ) => object;
  }>("src/loop/terminal-ui.ts");
  const { CtrlC } = await load<{ CtrlC: new (first: () => void, exit: () => void) => object }>(
    "src/loop/ctrl-c.ts",
  );
  const { DEFAULT_BUDGETS } = await load<{ DEFAULT_BUDGETS: Budgets }>("src/loop/budgets.ts");
  const { startConversation } = await load<{ startConversation(s: string): unknown }>(
    "src/context/conversation.ts",
  );

  const workspace = await mkdtemp(join(tmpdir(), "session-undo-"));
  try {
    await writeFile(join(workspace, "a.txt"), "one\n");
    const { client, requests } = fakeClient();
    let out = "";
    const code = await runSession({
      workspace,
      conversation: startConversation("You are a test agent."),
      client,
      model: "fake",
      maxRetries: 0,
      contextTokens: 100_000,
      budgets: DEFAULT_BUDGETS,
      yes: false,
      ui: new TerminalUi({ write: (t: string) => (out += t) }, { write: () => true }),
      ctrlC: new CtrlC(
        () => {},
        () => {},
      ),
      input: Readable.from(["change a.txt\n", "/undo\n", "what now?\n", "/exit\n"]),
      output: new PassThrough(),
    });
    assert.equal(code, 0, "the session should end normally at /exit");

    const sentAsTask = requests.some((messages) =>
      messages.some((m) => m.role === "user" && m.content === "/undo"),
    );
    assert.ok(
      !sentAsTask,
      "/undo is a command for the harness: it must not reach the model as a task",
    );
    assert.equal(
      await readFile(join(workspace, "a.txt"), "utf8"),
      "one\n",
      "/undo should take back the last task's run: a.txt should be as it was before it",
    );
    assert.match(
      out,
      /Undid run \S+: restored a\.txt/,
      `the person should read what was undone:\n${out}`,
    );

    const next = requests.find((messages) => {
      const last = messages.at(-1);
      return last?.role === "user" && last.content === "what now?";
    });
    assert.ok(next, "the task after /undo should still reach the model");
    const told = next
      .slice(0, -1)
      .some(
        (m) =>
          m.role === "user" &&
          typeof m.content === "string" &&
          /und(o|id|one)/i.test(m.content) &&
          m.content.includes("a.txt"),
      );
    assert.ok(
      told,
      "before the next task the conversation should have a user message that says a.txt was undone: " +
        "the model still believes its patch is in place",
    );
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}
