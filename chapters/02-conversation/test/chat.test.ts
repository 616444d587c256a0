import { loadScript, startOfflineModel } from "@build-agent/shared/offline-model";
import type { Fault, OfflineModel } from "@build-agent/shared/offline-model";
import { afterEach, describe, expect, it } from "vitest";
import { runChat, tokensLine } from "../src/context/chat.ts";
import { startConversation } from "../src/context/conversation.ts";
import { createModelClient } from "../src/model/model-client.ts";
import type { ModelEndpoint } from "../src/model/model-endpoint.ts";

let server: OfflineModel | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Drives runChat through the offline model with the given lines; collects what it printed. */
async function chat(
  lines: string[],
  options: { faults?: Fault[]; contextTokens?: number; interactive?: boolean } = {},
) {
  server = await startOfflineModel({ script: loadScript("chat"), faults: options.faults });
  const endpoint: ModelEndpoint = {
    baseURL: server.baseURL,
    apiKey: server.apiKey,
    model: server.model,
    timeoutMs: 10_000,
    maxRetries: 0,
    close: async () => {},
  };
  let output = "";
  const notes: string[] = [];
  const code = await runChat({
    client: createModelClient(endpoint),
    endpoint,
    contextTokens: options.contextTokens ?? 32_000,
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

  it("/tokens shows the count against the budget; /reset forgets; /exit ends", async () => {
    const { notes, requests } = await chat([
      "/tokens",
      "hello",
      "/reset",
      "/tokens",
      "again",
      "/exit",
      "never sent",
    ]);
    const empty = tokensLine(startConversation("Be brief."), 32_000);
    expect(empty).toMatch(/^context: \d+ of 32000 tokens \(1 message, system prompt included\)$/);
    expect(notes[0]).toBe(empty);
    expect(notes).toContain("context: conversation reset");
    expect(notes.filter((line) => line === empty)).toHaveLength(2);
    expect(requests).toHaveLength(2);
    expect(requests[1]).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "again" },
    ]);
  });

  it("drops the oldest turns to fit the budget and says so in one line", async () => {
    // The scripted answer alone is ~100 tokens: 60 hold a new question, never an old turn too.
    const { notes, requests } = await chat(["one", "two", "three"], { contextTokens: 60 });
    const dropped = notes.filter((line) => line.startsWith("context: dropped"));
    expect(dropped).toHaveLength(2);
    expect(dropped[0]).toMatch(
      /^context: dropped 2 old messages \(\d+ tokens\) to fit the 60-token budget$/,
    );
    expect(requests[2]).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "three" },
    ]);
  });

  it("refuses a question that cannot fit, without sending it", async () => {
    const piped = await chat(["word ".repeat(300), "next"], { contextTokens: 100 });
    expect(piped.code).toBe(1);
    expect(piped.requests).toHaveLength(0);
    expect(piped.notes[0]).toMatch(
      /^error: the latest message needs \d+ tokens; with the system prompt that is \d+, more than the 100-token budget: shorten the message, or raise AGENT_CONTEXT_TOKENS$/,
    );

    const interactive = await chat(["word ".repeat(300), "next"], {
      contextTokens: 100,
      interactive: true,
    });
    expect(interactive.code).toBe(0);
    expect(interactive.requests).toHaveLength(1);
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
