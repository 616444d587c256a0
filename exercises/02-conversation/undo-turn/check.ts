// Exercise "Take back the last turn": /undo removes the last question and its answer from the
// conversation, so the next request no longer carries them, and says so in one note. The chat
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
    const code = await runChat({
      client: createModelClient(endpoint),
      endpoint,
      lines: ["/undo", "first question", "the wrong question", "/undo", "third question"],
      write: () => {},
      note: (line) => notes.push(line),
      interactive: false,
      systemPrompt: "Be brief.",
    });
    assert.equal(code, 0, `the chat should end normally; its notes were:\n${notes.join("\n")}`);
    assert.ok(
      notes.includes("context: nothing to undo"),
      `/undo with nothing to undo should note "context: nothing to undo"; the notes were:\n${notes.join("\n")}`,
    );
    assert.ok(
      notes.includes("context: removed the last turn"),
      `/undo should note "context: removed the last turn"; the notes were:\n${notes.join("\n")}`,
    );
    assert.equal(server.requests.length, 3, "three questions should make three requests");
    const last = server.requests[2]!.messages.map((m) => `${m.role}: ${String(m.content)}`);
    assert.deepEqual(
      last.filter((line) => line.startsWith("user: ")),
      ["user: first question", "user: third question"],
      `after /undo the next request should not carry the undone question; it carried:\n${last.join("\n")}`,
    );
    assert.equal(
      last.filter((line) => line.startsWith("assistant: ")).length,
      1,
      "the undone question's answer should be gone too: one answer (to the first question) is left",
    );
  } finally {
    await server.close();
  }
}
