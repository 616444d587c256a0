// Exercise "A budget for the answer": AGENT_ANSWER_TOKENS (default 0, no limit) is read by
// resolveConfig, passed to runChat as answerTokens, sent as max_completion_tokens, and subtracted
// from what the request may use.
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { loadScript, startOfflineModel } from "../../../shared/src/offline-model/index.ts";

interface Message {
  role: string;
  content?: unknown;
}

interface Config {
  resolveConfig(env: Record<string, string | undefined>): Record<string, unknown>;
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
    answerTokens?: number;
    lines: string[];
    write: (text: string) => void;
    note: (line: string) => void;
    interactive: boolean;
  }): Promise<number>;
}

interface ModelClient {
  createModelClient(endpoint: { baseURL: string; apiKey: string; timeoutMs: number }): unknown;
}

interface TokenCounter {
  countRequestTokens(messages: readonly Message[]): number;
}

const QUESTIONS = ["What is a context window?", "And what happens when it is full?", "Thanks!"];

export default async function check(chapterDir: string): Promise<void> {
  const load = (file: string) => import(pathToFileURL(join(chapterDir, file)).href);
  const { resolveConfig } = (await load("src/model/config.ts")) as Config;
  const { runChat } = (await load("src/context/chat.ts")) as Chat;
  const { createModelClient } = (await load("src/model/model-client.ts")) as ModelClient;
  const { countRequestTokens } = (await load("src/context/token-counter.ts")) as TokenCounter;

  assert.equal(
    resolveConfig({}).answerTokens,
    0,
    "without AGENT_ANSWER_TOKENS, the configuration's answerTokens should be 0 (no limit)",
  );
  assert.equal(
    resolveConfig({ AGENT_ANSWER_TOKENS: "500" }).answerTokens,
    500,
    "AGENT_ANSWER_TOKENS=500 should give answerTokens 500",
  );
  const bad = resolveConfig({ AGENT_ANSWER_TOKENS: "lots" });
  assert.equal(bad.kind, "invalid", "AGENT_ANSWER_TOKENS=lots should be refused");
  assert.match(String(bad.message), /AGENT_ANSWER_TOKENS/, "the refusal should name the setting");
  const noRoom = resolveConfig({ AGENT_CONTEXT_TOKENS: "1000", AGENT_ANSWER_TOKENS: "1000" });
  assert.equal(
    noRoom.kind,
    "invalid",
    "an answer budget as big as the whole context budget leaves no room for the request: refuse it",
  );

  /** A piped chat through the offline model; returns each request's body. */
  async function chat(answerTokens: number | undefined) {
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
        contextTokens: 250,
        ...(answerTokens === undefined ? {} : { answerTokens }),
        lines: QUESTIONS,
        write: () => {},
        note: (line) => notes.push(line),
        interactive: false,
      });
      assert.equal(code, 0, `the chat should succeed; its notes:\n${notes.join("\n")}`);
      return server.requests;
    } finally {
      await server.close();
    }
  }

  const limited = await chat(100);
  assert.equal(limited.length, QUESTIONS.length, "every question should be sent");
  for (const [i, request] of limited.entries()) {
    assert.equal(
      request.max_completion_tokens,
      100,
      `request ${i + 1} should carry max_completion_tokens: 100 (runChat's answerTokens)`,
    );
    const tokens = countRequestTokens(request.messages as Message[]);
    assert.ok(
      tokens <= 150,
      `with 100 of 250 tokens kept for the answer, request ${i + 1} may use 150 tokens; it uses ${tokens}`,
    );
  }
  const unlimited = await chat(undefined);
  assert.ok(
    unlimited.every((request) => !("max_completion_tokens" in request)),
    "without answerTokens, no max_completion_tokens should be sent: the server decides",
  );
}
