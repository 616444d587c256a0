import { rm } from "node:fs/promises";
import { copyDemoRepo } from "@build-agent/shared/demo-repo";
import {
  loadScript,
  startOfflineModel,
  type Fault,
  type OfflineModel,
  type Script,
} from "@build-agent/shared/offline-model";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { addMessages, startConversation } from "../src/context/conversation.ts";
import { createModelClient } from "../src/model/model-client.ts";
import { answerWithTools } from "../src/tools/tool-round-trip.ts";
import type { ToolCallRequest, ToolCallResult } from "../src/tools/run-tool-call.ts";
import { workspaceTools } from "../src/tools/workspace-tools.ts";

let workspace: string;
let model: OfflineModel | undefined;

beforeEach(async () => {
  workspace = await copyDemoRepo("ch08-round-trip-");
});
afterEach(async () => {
  await model?.close();
  model = undefined;
  await rm(workspace, { recursive: true, force: true });
});

async function ask(script: Script, options: { faults?: Fault[]; maxRounds?: number } = {}) {
  model = await startOfflineModel({ script, faults: options.faults });
  const calls: Array<{ call: ToolCallRequest; result: ToolCallResult }> = [];
  let text = "";
  const result = await answerWithTools({
    client: createModelClient({ baseURL: model.baseURL, apiKey: model.apiKey, timeoutMs: 30_000 }),
    model: model.model,
    conversation: addMessages(startConversation("You answer questions about a repository."), {
      role: "user",
      content: "What is this repository?",
    }),
    tools: workspaceTools,
    context: { cwd: workspace, signal: new AbortController().signal },
    contextTokens: 32_000,
    maxRetries: 0,
    maxRounds: options.maxRounds,
    onText: (piece) => (text += piece),
    onToolCall: (call, outcome) => calls.push({ call, result: outcome }),
  });
  return { result, calls, text, requests: model.requests };
}

describe("answerWithTools through the offline model", () => {
  it("runs the tools the model asks for and sends the results back until it answers", async () => {
    const { result, calls, text, requests } = await ask(loadScript("explain-repo"));

    expect(calls.map(({ call }) => call.function.name)).toEqual(["list_files", "read_file"]);
    expect(calls.every(({ result: outcome }) => outcome.ok)).toBe(true);
    expect(result.rounds).toBe(3);
    expect(result.answer).toContain("This is corner-shop");
    expect(text).toContain("Let me see which files the repository has.");

    // The model saw the tool definitions and the real results of its calls.
    expect(requests[0]?.tools?.map((tool) => tool.function.name)).toEqual([
      "list_files",
      "read_file",
      "search_text",
    ]);
    const lastRequest = requests.at(-1)!;
    const toolMessages = lastRequest.messages.filter((message) => message.role === "tool");
    expect(toolMessages.map((message) => message.tool_call_id)).toEqual([
      "call_list_files",
      "call_read_readme",
    ]);
    expect(String(toolMessages[0]?.content)).toContain("src/cart.mjs");
    expect(String(toolMessages[1]?.content)).toMatch(
      /^README\.md: full read, lines 1-\d+ of \d+, sha256 [0-9a-f]{64}\n/,
    );
  });

  it("hands malformed tool arguments back to the model as an observation", async () => {
    const { calls } = await ask(loadScript("explain-repo"), {
      faults: [{ kind: "malformed_tool_arguments" }],
    });
    expect(calls[0]?.result.ok).toBe(false);
    expect(calls[0]?.result.content).toMatch(
      /^Error: the arguments for list_files are not valid JSON: .*Call list_files again with its arguments as one JSON object\.$/,
    );
  });

  it("stops a model that never stops calling tools", async () => {
    const looping: Script = {
      name: "looping",
      description: "test: calls list_files forever",
      repeatLastStep: true,
      steps: [{ reply: { toolCalls: [{ id: "again", name: "list_files", arguments: "{}" }] } }],
    };
    const { result, calls } = await ask(looping, { maxRounds: 3 });
    expect(result.answer).toBeNull();
    expect(result.rounds).toBe(3);
    expect(calls).toHaveLength(3);
  });
});
