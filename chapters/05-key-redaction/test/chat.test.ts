import { rm } from "node:fs/promises";
import { copyDemoRepo } from "@build-agent/shared/demo-repo";
import { loadScript, startOfflineModel } from "@build-agent/shared/offline-model";
import type { Fault, OfflineModel, Script } from "@build-agent/shared/offline-model";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runChat } from "../src/context/chat.ts";
import { createModelClient } from "../src/model/model-client.ts";
import type { ModelEndpoint } from "../src/model/model-endpoint.ts";
import { workspaceTools } from "../src/tools/workspace-tools.ts";

let server: OfflineModel | undefined;
let workspace: string;
beforeEach(async () => {
  workspace = await copyDemoRepo("ch04-chat-");
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(workspace, { recursive: true, force: true });
});

/** Drives runChat through the offline model with the given lines; collects what it printed. */
async function chat(
  lines: string[],
  options: { script?: Script; faults?: Fault[]; interactive?: boolean; maxRetries?: number } = {},
) {
  await server?.close(); // a test may chat twice
  server = await startOfflineModel({
    script: options.script ?? loadScript("chat"),
    faults: options.faults,
  });
  const endpoint: ModelEndpoint = {
    baseURL: server.baseURL,
    apiKey: server.apiKey,
    model: server.model,
    timeoutMs: 10_000,
    maxRetries: options.maxRetries ?? 0,
    close: async () => {},
  };
  let output = "";
  const notes: string[] = [];
  const code = await runChat({
    client: createModelClient(endpoint),
    endpoint,
    tools: workspaceTools,
    workspace,
    lines,
    write: (text) => (output += text),
    note: (line) => notes.push(line),
    interactive: options.interactive ?? false,
    systemPrompt: "Be brief.",
  });
  const requests = server.requests.map((request) => request.messages);
  return { code, output, notes, requests };
}

/** Reads the README in the first turn, then answers a follow-up without tools. */
const readThenFollowUp: Script = {
  name: "read-then-follow-up",
  description: "test: one read, an answer, then a second turn",
  steps: [
    {
      expect: { lastMessageRole: "user" },
      reply: {
        content: "Reading the README.",
        toolCalls: [{ id: "call_readme", name: "read_file", arguments: '{"path":"README.md"}' }],
      },
    },
    { expect: { toolResultFor: "call_readme" }, reply: { content: "It is a shop." } },
    { expect: { lastMessageRole: "user" }, reply: { content: "Still a shop." } },
  ],
};

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
    expect(notes).toEqual([
      expect.stringMatching(/^tokens: \d+ in, \d+ out over 1 model calls$/),
      expect.stringMatching(/^tokens: \d+ in, \d+ out over 1 model calls$/),
    ]);
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

  it("prints one line per tool call, and fixes the demo bug in the workspace", async () => {
    const { code, output, notes } = await chat(["fix the coupon bug"], {
      script: loadScript("fix-bug-edit"),
    });
    expect(code).toBe(0);
    expect(output).toContain(
      "I will look at the repository's files first.\n→ list_files  ok\nThe totals",
    );
    expect(output).toContain("→ read_file src/cart.mjs  ok\n");
    expect(output).toContain("→ edit_file src/cart.mjs  ok\n");
    expect(notes).toEqual([expect.stringMatching(/^tokens: \d+ in, \d+ out over 4 model calls$/)]);
  });

  it("keeps a turn's tool calls and results for the next turn", async () => {
    const { requests } = await chat(["what is this?", "and now?"], { script: readThenFollowUp });
    expect(requests).toHaveLength(3);
    expect(requests[2]?.map((message) => message.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
      "assistant",
      "user",
    ]);
  });

  it("fails and forgets a turn still calling tools after the step limit", async () => {
    const looping: Script = {
      name: "looping",
      description: "test: calls list_files forever",
      repeatLastStep: true,
      steps: [{ reply: { toolCalls: [{ id: "again", name: "list_files", arguments: "{}" }] } }],
    };
    const { code, notes, requests } = await chat(["loop", "never sent"], { script: looping });
    expect(code).toBe(1);
    expect(requests).toHaveLength(8);
    expect(notes).toEqual([
      "error: stopped after 8 model calls: the model still wanted more tools. Ask a narrower question.",
    ]);
  });

  it("says when it waits and retries, then answers the turn", async () => {
    const faults: Fault[] = [
      { kind: "rate_limit", retryAfterSeconds: 1 },
      { kind: "rate_limit", retryAfterSeconds: 0 },
    ];
    const { code, output, notes, requests } = await chat(["hello"], { faults, maxRetries: 3 });
    expect(code).toBe(0);
    expect(requests).toHaveLength(3);
    expect(output).toContain('You asked: "hello"');
    expect(notes).toEqual([
      "retrying in 1.0 s (retry 1 of 3)",
      "retrying in 0.0 s (retry 2 of 3)",
      expect.stringMatching(/^tokens: \d+ in, \d+ out over 1 model calls$/),
    ]);
  });

  it("explains a rate limit that outlasts the retries, naming AGENT_MAX_RETRIES", async () => {
    const faults: Fault[] = [0, 1, 2].map(() => ({ kind: "rate_limit", retryAfterSeconds: 0 }));
    const { code, notes, requests } = await chat(["hello"], { faults, maxRetries: 2 });
    expect(code).toBe(1);
    expect(requests).toHaveLength(3);
    expect(notes.at(-1)).toBe(
      `error: rate-limited by ${server?.baseURL}, still after 2 retries: wait a minute, or raise AGENT_MAX_RETRIES`,
    );
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
