// Exercise "Show what the model sees": /history notes one line per message of the history, its
// role and the first line of its text, cut at 60 characters, written out by visible(). The chat
// runs in-process against the offline model.
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { loadScript, startOfflineModel } from "../../../shared/src/offline-model/index.ts";

interface Endpoint {
  baseURL: string;
  apiKey: string;
  model: string;
  timeoutMs: number;
  close(): Promise<void>;
}
interface Chat {
  runChat(options: {
    client: unknown;
    endpoint: Endpoint;
    lines: string[];
    write: (text: string) => void;
    note: (line: string) => void;
    interactive: boolean;
    systemPrompt?: string;
  }): Promise<number>;
}
interface ModelClient {
  createModelClient(endpoint: Endpoint): unknown;
}

export default async function check(chapterDir: string): Promise<void> {
  const load = async <T>(path: string) =>
    (await import(pathToFileURL(join(chapterDir, path)).href)) as T;
  const { runChat } = await load<Chat>("src/context/chat.ts");
  const { createModelClient } = await load<ModelClient>("src/model/model-client.ts");

  const server = await startOfflineModel({ script: loadScript("chat") });
  try {
    const endpoint: Endpoint = { ...server, timeoutMs: 10_000, close: async () => {} };
    const notes: string[] = [];
    const question = "What is a context window?\u001b[8m";
    const code = await runChat({
      client: createModelClient(endpoint),
      endpoint,
      lines: ["/history", question, "/history"],
      write: () => {},
      note: (line) => notes.push(line),
      interactive: false,
      systemPrompt: "Be brief.",
    });
    assert.equal(code, 0, `the chat should end normally; its notes were:\n${notes.join("\n")}`);
    const shown = notes.filter((line) => /^(user|assistant): /.test(line));
    assert.deepEqual(
      shown.map((line) => line.split(":")[0]),
      ["user", "assistant"],
      `after one turn, /history should note two lines, user then assistant; the notes were:\n${notes.join("\n")}`,
    );
    assert.equal(
      shown[0],
      "user: What is a context window?\\x1b[8m",
      "the user line should be the question, its escape code written out by visible()",
    );
    const answer = shown[1]!.slice("assistant: ".length);
    assert.ok(
      answer.startsWith("Scripted demo answer") && answer.endsWith("…") && answer.length === 61,
      `the answer's line should be its first 60 characters and "…"; it was: ${shown[1]}`,
    );
    assert.equal(
      notes[0],
      "context: the conversation is empty",
      `/history before any question should note "context: the conversation is empty"; the notes were:\n${notes.join("\n")}`,
    );
  } finally {
    await server.close();
  }
}
