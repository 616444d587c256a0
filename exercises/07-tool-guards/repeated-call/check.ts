// Exercise "Stop a model that loops": answerWithTools answers a call with the same name and
// arguments as an earlier call of the turn without running the tool again, and still gives every
// call a result. The model is a scripted stand-in for the SDK client, in-process.
import assert from "node:assert/strict";
import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

interface ToolCall {
  id: string;
  function: { name: string; arguments: string };
}
interface ToolCallResult {
  tool_call_id: string;
  ok: boolean;
  content: string;
  code?: string;
}
interface Message {
  role: string;
  content?: unknown;
  tool_call_id?: string;
}
interface Conversation {
  history: readonly Message[];
}
interface Tool {
  name: string;
  execute(args: { path: string }, context: unknown): Promise<{ ok: boolean; content: string }>;
}
interface RoundTrip {
  answerWithTools(options: {
    client: unknown;
    model: string;
    conversation: Conversation;
    tools: readonly Tool[];
    context: { cwd: string; signal: AbortSignal };
    contextTokens: number;
    maxRetries: number;
    onToolCall?: (call: ToolCall, result: ToolCallResult) => void;
  }): Promise<{ conversation: Conversation; answer: string | null; rounds: number }>;
}
interface ConversationModule {
  startConversation(system?: string): Conversation;
  addMessages(conversation: Conversation, ...messages: Message[]): Conversation;
}

/** One streamed reply: tool calls, or text. */
type Reply = { calls: Array<[string, string]> } | { text: string };

/** Just enough of the OpenAI client for streamChat: each create() streams the next reply. */
function scriptedClient(replies: Reply[]) {
  let next = 0;
  return {
    timeout: 5000,
    chat: {
      completions: {
        create: async () => {
          const reply = replies[next++];
          if (reply === undefined) throw new Error("the model was asked more often than scripted");
          return (async function* () {
            if ("text" in reply) {
              yield {
                choices: [{ index: 0, delta: { content: reply.text }, finish_reason: null }],
              };
              yield { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] };
            } else {
              const tool_calls = reply.calls.map(([id, path], index) => ({
                index,
                id,
                type: "function",
                function: { name: "read_file", arguments: JSON.stringify({ path }) },
              }));
              yield { choices: [{ index: 0, delta: { tool_calls }, finish_reason: null }] };
              yield { choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] };
            }
            yield { choices: [], usage: { prompt_tokens: 10, completion_tokens: 5 } };
          })();
        },
      },
    },
  };
}

export default async function check(chapterDir: string): Promise<void> {
  const load = async <T>(path: string) =>
    (await import(pathToFileURL(join(chapterDir, path)).href)) as T;
  const { answerWithTools } = await load<RoundTrip>("src/tools/tool-round-trip.ts");
  const { readFileTool } = await load<{ readFileTool: Tool }>("src/tools/read-file.ts");
  const { startConversation, addMessages } = await load<ConversationModule>(
    "src/context/conversation.ts",
  );

  const workspace = await realpath(await mkdtemp(join(tmpdir(), "repeated-call-")));
  try {
    await writeFile(join(workspace, "a.txt"), "alpha\n");
    await writeFile(join(workspace, "b.txt"), "beta\n");
    const runs: string[] = [];
    const countingRead: Tool = {
      ...readFileTool,
      execute: (args, context) => {
        runs.push(args.path);
        return readFileTool.execute(args, context);
      },
    };
    const lines: string[] = [];
    const result = await answerWithTools({
      client: scriptedClient([
        { calls: [["c1", "a.txt"]] },
        {
          calls: [
            ["c2", "a.txt"],
            ["c3", "b.txt"],
          ],
        },
        { text: "done" },
      ]),
      model: "scripted",
      conversation: addMessages(startConversation(), { role: "user", content: "read" }),
      tools: [countingRead],
      context: { cwd: workspace, signal: new AbortController().signal },
      contextTokens: 100_000,
      maxRetries: 0,
      onToolCall: (call) => lines.push(call.id),
    });

    assert.equal(result.answer, "done", "the round trip should still end with the model's answer");
    assert.deepEqual(
      runs,
      ["a.txt", "b.txt"],
      `read_file ran for ${JSON.stringify(runs)}: the repeated read of a.txt (call c2) should be answered without running the tool, a new call (c3) should run`,
    );
    const results = new Map(
      result.conversation.history
        .filter((message) => message.role === "tool")
        .map((message) => [message.tool_call_id, String(message.content)]),
    );
    assert.deepEqual(
      [...results.keys()],
      ["c1", "c2", "c3"],
      "every tool call needs a result in the conversation, a repeated one too: the API requires it",
    );
    assert.match(
      results.get("c2") ?? "",
      /repeat|already/i,
      `the result of the repeated call should tell the model it is a repeat; it was:\n${results.get("c2")}`,
    );
    assert.match(results.get("c3") ?? "", /beta/, "the new call c3 should get b.txt's contents");
    assert.deepEqual(lines, ["c1", "c2", "c3"], "the person watching should see every call's line");
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}
