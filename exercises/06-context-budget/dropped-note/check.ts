// Exercise "Tell the model what was dropped": when the round trip's fitting drops turns, the request
// starts its history with one assistant message saying so, and still fits the budget with it (and
// the tool definitions) counted. When there is no room for the note beside the question, the
// question goes out without it.
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { loadScript, startOfflineModel } from "../../../shared/src/offline-model/index.ts";

interface Message {
  role: string;
  content?: unknown;
}

interface Chat {
  runChat(options: {
    client: unknown;
    endpoint: {
      baseURL: string;
      apiKey: string;
      model: string;
      timeoutMs: number;
      maxRetries: number;
      close(): Promise<void>;
    };
    contextTokens: number;
    tools: readonly unknown[];
    workspace: string;
    lines: string[];
    write: (text: string) => void;
    note: (line: string) => void;
    interactive: boolean;
    systemPrompt?: string;
  }): Promise<number>;
}

interface ModelClient {
  createModelClient(endpoint: { baseURL: string; apiKey: string; timeoutMs: number }): unknown;
}

interface TokenCounter {
  countRequestTokens(messages: readonly Message[]): number;
  countToolTokens(tools: readonly unknown[]): number;
}

interface Tools {
  workspaceTools: readonly unknown[];
}

interface DefineTool {
  toOpenAITool(tool: unknown): unknown;
}

const SYSTEM = "You are a helpful assistant for a software developer. Answer concisely.";

export default async function check(chapterDir: string): Promise<void> {
  const load = (file: string) => import(pathToFileURL(join(chapterDir, file)).href);
  const { runChat } = (await load("src/context/chat.ts")) as Chat;
  const { createModelClient } = (await load("src/model/model-client.ts")) as ModelClient;
  const { countRequestTokens, countToolTokens } = (await load(
    "src/context/token-counter.ts",
  )) as TokenCounter;
  const { workspaceTools } = (await load("src/tools/workspace-tools.ts")) as Tools;
  const { toOpenAITool } = (await load("src/tools/define-tool.ts")) as DefineTool;
  // Every request carries the tool definitions, so the budget holds them before any message.
  const toolTokens = countToolTokens(workspaceTools.map(toOpenAITool));

  /** Runs a piped chat through the offline model; returns each request's messages and the notes. */
  async function chat(lines: string[], contextTokens: number) {
    const server = await startOfflineModel({ script: loadScript("chat") });
    try {
      const endpoint = {
        baseURL: server.baseURL,
        apiKey: server.apiKey,
        model: server.model,
        timeoutMs: 10_000,
        maxRetries: 0,
        close: async () => {},
      };
      const notes: string[] = [];
      const code = await runChat({
        client: createModelClient(endpoint),
        endpoint,
        contextTokens,
        tools: workspaceTools,
        workspace: chapterDir, // the chat script calls no tool
        lines,
        write: () => {},
        note: (line) => notes.push(line),
        interactive: false,
        systemPrompt: SYSTEM,
      });
      const requests = server.requests.map((request) => request.messages as Message[]);
      return { code, notes, requests };
    } finally {
      await server.close();
    }
  }

  // The demo's conversation: the third question only fits once the first turn is dropped.
  const budget = toolTokens + 250;
  const questions = ["What is a context window?", "And what happens when it is full?", "Thanks!"];
  const { code, notes, requests } = await chat(questions, budget);
  assert.equal(code, 0, `the chat should succeed; its notes:\n${notes.join("\n")}`);
  assert.equal(requests.length, 3, "each of the three questions should be sent");
  const mentionsDropping = (message: Message | undefined) =>
    typeof message?.content === "string" && /dropped/i.test(message.content);
  for (const [i, request] of requests.slice(0, 2).entries()) {
    assert.ok(
      !request.some(mentionsDropping),
      `request ${i + 1} dropped nothing, so it should carry no note`,
    );
  }
  const third = requests[2]!;
  assert.ok(
    notes.some((line) => line.startsWith("context: dropped")),
    "the user should still be told what was dropped",
  );
  assert.equal(third[0]?.role, "system", "the system prompt stays first");
  assert.ok(
    third[1]?.role === "assistant" && mentionsDropping(third[1]),
    `right after the system prompt, the third request should have an assistant message saying earlier turns were dropped; it has: ${JSON.stringify(third[1])}`,
  );
  assert.equal(third.filter(mentionsDropping).length, 1, "exactly one note, not one per turn");
  assert.deepEqual(third.at(-1), { role: "user", content: "Thanks!" }, "the question comes last");
  const tokens = countRequestTokens(third) + toolTokens;
  assert.ok(
    tokens <= budget,
    `with the note and the tools counted, the request must fit the ${budget}-token budget; it needs ${tokens}`,
  );

  // No room for the note: a budget that holds the system prompt and the question, and barely more.
  const question = "And what happens when it is full?";
  const tight =
    countRequestTokens([
      { role: "system", content: SYSTEM },
      { role: "user", content: question },
    ]) +
    toolTokens +
    2;
  const squeezed = await chat(["Hi", question], tight);
  assert.equal(
    squeezed.requests.length,
    2,
    `a question that fits the budget must still be sent when the note does not fit beside it; notes:\n${squeezed.notes.join("\n")}`,
  );
  assert.deepEqual(
    squeezed.requests[1],
    [
      { role: "system", content: SYSTEM },
      { role: "user", content: question },
    ],
    "without room for the note, the request is the system prompt and the question",
  );
}
