import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { copyDemoRepo, runDemoCheck } from "@build-agent/shared/demo-repo";
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
import type { ToolCallRequest, ToolCallResult } from "../src/tools/run-tool-call.ts";
import { answerWithTools, DEFAULT_MAX_ROUNDS } from "../src/tools/tool-round-trip.ts";
import { workspaceTools } from "../src/tools/workspace-tools.ts";

let workspace: string;
let model: OfflineModel | undefined;

beforeEach(async () => {
  workspace = await copyDemoRepo("ch03-round-trip-");
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
    conversation: addMessages(startConversation("You fix bugs."), {
      role: "user",
      content: "The total with a coupon is wrong. Find the bug and fix it.",
    }),
    tools: workspaceTools,
    context: { cwd: workspace, signal: new AbortController().signal },
    maxRounds: options.maxRounds,
    onText: (piece) => (text += piece),
    onToolCall: (call, outcome) => calls.push({ call, result: outcome }),
  });
  return { result, calls, text, requests: model.requests };
}

/** A script that calls read_file on README.md forever. */
const looping: Script = {
  name: "looping",
  description: "test: calls read_file forever",
  repeatLastStep: true,
  steps: [
    {
      reply: { toolCalls: [{ id: "again", name: "read_file", arguments: '{"path":"README.md"}' }] },
    },
  ],
};

describe("answerWithTools through the offline model", () => {
  it("runs the calls, sends the results back, and the demo bug is fixed on disk", async () => {
    const { result, calls, text, requests } = await ask(loadScript("fix-bug-edit"));

    expect(calls.map(({ call }) => call.function.name)).toEqual([
      "list_files",
      "read_file",
      "edit_file",
    ]);
    expect(calls.every(({ result: outcome }) => outcome.ok)).toBe(true);
    expect(result.rounds).toBe(4);
    expect(result.answer).toContain("Fixed src/cart.mjs");
    expect(text).toContain("Reading it before changing anything.");
    expect(result.usage).toEqual({ prompt: expect.any(Number), completion: expect.any(Number) });

    // The model saw the three tools and the real results of its calls.
    expect(requests[0]?.tools?.map((tool) => tool.function.name)).toEqual([
      "list_files",
      "read_file",
      "edit_file",
    ]);
    const toolMessages = requests.at(-1)!.messages.filter((message) => message.role === "tool");
    expect(toolMessages.map((message) => message.tool_call_id)).toEqual([
      "call_list",
      "call_read_cart",
      "call_edit_cart",
    ]);
    expect(String(toolMessages[1]?.content)).toMatch(/^src\/cart\.mjs: \d+ lines\n {4}1\timport/);

    expect(await readFile(join(workspace, "src/cart.mjs"), "utf8")).toContain(
      "const goods = Math.max(0, subtotal(items) - couponCents);",
    );
    expect((await runDemoCheck(workspace)).ok).toBe(true);
  });

  it("answers every call of a message, the failed ones too, in order", async () => {
    const script: Script = {
      name: "three-calls",
      description: "test: one good call between two bad ones",
      steps: [
        {
          reply: {
            toolCalls: [
              { id: "a", name: "read_file", arguments: '{"path":"/etc/passwd"}' },
              { id: "b", name: "read_file", arguments: '{"path":"README.md"}' },
              { id: "c", name: "read_file", arguments: '{"file":"README.md"}' },
            ],
          },
        },
        { expect: { toolResultFor: "c" }, reply: { content: "Done." } },
      ],
    };
    const { result, calls, requests } = await ask(script);
    expect(result.answer).toBe("Done.");
    expect(calls.map(({ result: outcome }) => outcome.ok)).toEqual([false, true, false]);
    const answered = requests[1]!.messages.filter((message) => message.role === "tool");
    expect(answered.map((message) => message.tool_call_id)).toEqual(["a", "b", "c"]);
    expect(String(answered[0]?.content)).toMatch(/^Error \[path_escape\]: Path "\/etc\/passwd"/);
  });

  it("hands malformed tool arguments back to the model as an observation", async () => {
    const { calls } = await ask(loadScript("fix-bug-edit"), {
      faults: [{ kind: "malformed_tool_arguments" }],
    });
    const failed = calls.find(({ result: outcome }) => !outcome.ok);
    expect(failed?.result.content).toMatch(/^Error: the arguments for \w+ are not valid JSON\./);
  });

  it("stops a model that never stops calling tools", async () => {
    const { result, calls } = await ask(looping, { maxRounds: 3 });
    expect(result.answer).toBeNull();
    expect(result.rounds).toBe(3);
    expect(calls).toHaveLength(3);
  });

  it(`stops after ${DEFAULT_MAX_ROUNDS} model calls by default`, async () => {
    expect(DEFAULT_MAX_ROUNDS).toBe(8);
    const { result, requests } = await ask(looping);
    expect(result.answer).toBeNull();
    expect(requests).toHaveLength(8);
  });
});
