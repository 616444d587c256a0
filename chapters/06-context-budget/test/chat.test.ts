import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { copyDemoRepo } from "@build-agent/shared/demo-repo";
import { loadScript, startOfflineModel } from "@build-agent/shared/offline-model";
import type { Fault, OfflineModel, Script } from "@build-agent/shared/offline-model";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runChat, tokensLine } from "../src/context/chat.ts";
import { startConversation } from "../src/context/conversation.ts";
import { countToolTokens } from "../src/context/token-counter.ts";
import { createModelClient } from "../src/model/model-client.ts";
import type { ModelEndpoint } from "../src/model/model-endpoint.ts";
import { toOpenAITool } from "../src/tools/define-tool.ts";
import { workspaceTools } from "../src/tools/workspace-tools.ts";

// The tool definitions go with every request, so a budget holds them before any message.
const TOOL_TOKENS = countToolTokens(workspaceTools.map(toOpenAITool));

let server: OfflineModel | undefined;
let workspace: string;
beforeEach(async () => {
  workspace = await copyDemoRepo("ch06-chat-");
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(workspace, { recursive: true, force: true });
});

/** Drives runChat through the offline model with the given lines; collects what it printed. */
async function chat(
  lines: string[],
  options: {
    script?: Script;
    faults?: Fault[];
    interactive?: boolean;
    contextTokens?: number;
  } = {},
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
    maxRetries: 0,
    close: async () => {},
  };
  let output = "";
  const notes: string[] = [];
  const code = await runChat({
    client: createModelClient(endpoint),
    endpoint,
    contextTokens: options.contextTokens ?? 32_000,
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

  it("drops the oldest turns to fit the budget and says so in one line", async () => {
    // The scripted answer alone is ~100 tokens: 60 beside the tools hold a new question, never
    // an old turn too.
    const budget = TOOL_TOKENS + 60;
    const { notes, requests } = await chat(["one", "two", "three"], { contextTokens: budget });
    const dropped = notes.filter((line) => line.startsWith("context: dropped"));
    expect(dropped).toHaveLength(2);
    expect(dropped[0]).toMatch(
      new RegExp(
        `^context: dropped 2 old messages \\(\\d+ tokens\\) to fit the ${budget}-token budget$`,
      ),
    );
    expect(requests[2]).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "three" },
    ]);
  });

  it("drops a whole old turn, its tool call and result with it, never half of one", async () => {
    // The first turn's second request (with the README) fits; the follow-up beside it does not.
    const budget = TOOL_TOKENS + 400;
    await writeFile(join(workspace, "README.md"), "the shop sells notebooks\n".repeat(40));
    const followUp = "and now?" + " Tell me more.".repeat(10);
    const { code, requests, notes } = await chat(["what is this?", followUp], {
      // Replayed in order: with the first turn dropped, the request holds no earlier answer.
      script: { ...readThenFollowUp, sequential: true },
      contextTokens: budget,
    });
    expect(code).toBe(0);
    expect(notes).toContainEqual(expect.stringMatching(/^context: dropped 4 old messages /));
    expect(requests[1]?.map((message) => message.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
    ]);
    expect(requests[2]).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: followUp },
    ]);
  });

  it("refuses a question that cannot fit, without sending it", async () => {
    const budget = TOOL_TOKENS + 100;
    const piped = await chat(["word ".repeat(300), "next"], { contextTokens: budget });
    expect(piped.code).toBe(1);
    expect(piped.requests).toHaveLength(0);
    expect(piped.notes[0]).toMatch(
      new RegExp(
        `^error: the latest message needs \\d+ tokens; with the system prompt and the tools that is \\d+, more than the ${budget}-token budget: shorten the message, or raise AGENT_CONTEXT_TOKENS$`,
      ),
    );

    const interactive = await chat(["word ".repeat(300), "next"], {
      contextTokens: budget,
      interactive: true,
    });
    expect(interactive.code).toBe(0);
    expect(interactive.requests).toHaveLength(1);
  });

  it("fails and forgets a turn whose tool result outgrows the budget, before sending it", async () => {
    // The model reads a file far bigger than the budget: the latest turn cannot be dropped.
    await writeFile(join(workspace, "README.md"), "a line of the readme\n".repeat(400));
    const budget = TOOL_TOKENS + 300;
    const { code, output, notes, requests } = await chat(["what is this?", "and now?"], {
      script: readThenFollowUp,
      contextTokens: budget,
      interactive: true,
    });
    expect(code).toBe(0);
    expect(output).toContain("→ read_file README.md  ok\n");
    expect(notes[0]).toMatch(
      new RegExp(
        `^error: the latest message needs \\d+ tokens; with the system prompt and the tools that is \\d+, more than the ${budget}-token budget: shorten the message, or raise AGENT_CONTEXT_TOKENS$`,
      ),
    );
    // The request with the file was never sent, and the next turn starts without the failed one.
    expect(requests).toHaveLength(2);
    expect(requests[1]).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "and now?" },
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
