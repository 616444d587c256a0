import { loadScript, startOfflineModel } from "@build-agent/shared/offline-model";
import type { Fault, OfflineModel } from "@build-agent/shared/offline-model";
import { afterEach, describe, expect, it } from "vitest";
import { runChat } from "../src/context/chat.ts";
import { createModelClient } from "../src/model/model-client.ts";
import type { ModelEndpoint } from "../src/model/model-endpoint.ts";

let server: OfflineModel | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Drives runChat through the offline model with the given lines; collects what it printed. */
async function chat(lines: string[], options: { faults?: Fault[]; interactive?: boolean } = {}) {
  server = await startOfflineModel({ script: loadScript("chat"), faults: options.faults });
  const endpoint: ModelEndpoint = {
    baseURL: server.baseURL,
    apiKey: server.apiKey,
    model: server.model,
    timeoutMs: 10_000,
    close: async () => {},
  };
  let output = "";
  const notes: string[] = [];
  const code = await runChat({
    client: createModelClient(endpoint),
    endpoint,
    lines,
    write: (text) => (output += text),
    note: (line) => notes.push(line),
    interactive: options.interactive ?? false,
    systemPrompt: "Be brief.",
  });
  const requests = server.requests.map((request) => request.messages);
  return { code, output, notes, requests };
}

describe("runChat through the offline model", () => {
  it("remembers the conversation: each request carries the earlier turns", async () => {
    const { code, output, requests, notes } = await chat(["first question", "", "second question"]);
    expect(code).toBe(0);
    expect(requests).toHaveLength(2);
    const firstAnswer = output.split("\n\n")[0];
    expect(requests[1]).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "first question" },
      { role: "assistant", content: expect.stringContaining('You asked: "first question"') },
      { role: "user", content: "second question" },
    ]);
    expect(firstAnswer).toContain('You asked: "first question"');
    expect(notes.filter((line) => line.startsWith("tokens: "))).toHaveLength(2);
  });

  it("/reset forgets the conversation; /exit ends the chat", async () => {
    const { notes, requests } = await chat(["hello", "/reset", "again", "/exit", "never sent"]);
    expect(notes).toContain("context: conversation reset");
    expect(requests).toHaveLength(2);
    expect(requests[1]).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "again" },
    ]);
  });

  it("refuses an unknown command instead of sending it to the model as a question", async () => {
    const { notes, requests } = await chat(["/frobnicate", "a question"]);
    expect(notes[0]).toMatch(/^unknown command \/frobnicate: commands: \/reset/);
    expect(requests).toHaveLength(1);
    expect(requests[0]).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "a question" },
    ]);
  });

  it("forgets a failed turn, carries on when interactive, stops when piped", async () => {
    const interactive = await chat(["lost question", "kept question"], {
      faults: [{ kind: "bad_key" }],
      interactive: true,
    });
    expect(interactive.code).toBe(0);
    expect(interactive.notes[0]).toBe(
      `error: key rejected by ${server?.baseURL}: check OPENAI_API_KEY`,
    );
    expect(interactive.requests[1]).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "kept question" },
    ]);

    const piped = await chat(["lost question", "never sent"], {
      faults: [{ kind: "server_error" }],
    });
    expect(piped.code).toBe(1);
    expect(piped.requests).toHaveLength(1);
  });
});
