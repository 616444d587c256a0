import { readFile, rm, writeFile } from "node:fs/promises";
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
import { ContextBudgetError } from "../src/context/context-budget.ts";
import {
  addMessages,
  requestMessages,
  startConversation,
  type Conversation,
} from "../src/context/conversation.ts";
import { countRequestTokens, countToolTokens } from "../src/context/token-counter.ts";
import { createModelClient } from "../src/model/model-client.ts";
import { toOpenAITool } from "../src/tools/define-tool.ts";
import type { ToolCallRequest, ToolCallResult } from "../src/tools/run-tool-call.ts";
import { answerWithTools, DEFAULT_MAX_ROUNDS } from "../src/tools/tool-round-trip.ts";
import { workspaceTools } from "../src/tools/workspace-tools.ts";

let workspace: string;
let model: OfflineModel | undefined;

beforeEach(async () => {
  workspace = await copyDemoRepo("ch06-round-trip-");
});
afterEach(async () => {
  await model?.close();
  model = undefined;
  await rm(workspace, { recursive: true, force: true });
});

const TASK = addMessages(startConversation("You fix bugs."), {
  role: "user",
  content: "The total with a coupon is wrong. Find the bug and fix it.",
});

async function ask(
  script: Script,
  options: {
    faults?: Fault[];
    maxRounds?: number;
    conversation?: Conversation;
    contextTokens?: number;
  } = {},
) {
  model = await startOfflineModel({ script, faults: options.faults });
  const calls: Array<{ call: ToolCallRequest; result: ToolCallResult }> = [];
  const notices: string[] = [];
  let text = "";
  const result = await answerWithTools({
    client: createModelClient({ baseURL: model.baseURL, apiKey: model.apiKey, timeoutMs: 30_000 }),
    model: model.model,
    conversation: options.conversation ?? TASK,
    tools: workspaceTools,
    context: { cwd: workspace, signal: new AbortController().signal },
    contextTokens: options.contextTokens ?? 32_000,
    maxRetries: 0,
    maxRounds: options.maxRounds,
    onText: (piece) => (text += piece),
    onToolCall: (call, outcome) => calls.push({ call, result: outcome }),
    onNotice: (line) => notices.push(line),
  });
  return { result, calls, text, notices, requests: model.requests };
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

describe("answerWithTools fits every request to the budget", () => {
  // What every request carries whatever is dropped: the system prompt and the tool definitions.
  const TOOL_TOKENS = countToolTokens(workspaceTools.map(toOpenAITool));
  const earlier = addMessages(
    startConversation("You fix bugs."),
    { role: "user", content: "What is in README.md? ".repeat(20) },
    { role: "assistant", content: "It describes the shop. ".repeat(20) },
    { role: "user", content: "The total with a coupon is wrong. Find the bug and fix it." },
  );

  it("counts the tool definitions, and drops the oldest turn before the request that needs it", async () => {
    const withEverything = countRequestTokens(requestMessages(earlier)) + TOOL_TOKENS;
    // Replayed in order: the earlier answer in the conversation is not one of this script's.
    const script = { ...loadScript("fix-bug-edit"), sequential: true };
    const { notices, requests } = await ask(script, {
      conversation: earlier,
      // One token short for the first request: the tool definitions are part of the count.
      contextTokens: withEverything - 1,
      // Two rounds: list_files's result still fits beside the task; the file read next would not.
      maxRounds: 2,
    });
    expect(notices[0]).toMatch(
      new RegExp(
        `^context: dropped 2 old messages \\(\\d+ tokens\\) to fit the ${withEverything - 1}-token budget$`,
      ),
    );
    // Dropped once and for all: the later requests of the turn start from the fitted conversation.
    expect(notices).toHaveLength(1);
    expect(requests.map((request) => request.messages[1]?.content)).toEqual(
      Array(2).fill("The total with a coupon is wrong. Find the bug and fix it."),
    );
    expect(requests[0]?.tools).toHaveLength(3);
  });

  it("drops nothing and says nothing when the request fits exactly", async () => {
    const exact = countRequestTokens(requestMessages(TASK)) + TOOL_TOKENS;
    const { requests, notices } = await ask(loadScript("fix-bug-edit"), {
      contextTokens: exact,
      maxRounds: 1,
    });
    expect(notices).toEqual([]);
    expect(requests).toHaveLength(1);
  });

  it("refuses, before sending it, a request that a tool result made too big for the budget", async () => {
    // A hostile or careless model reads a file far bigger than the budget: the turn cannot
    // shrink (it is the latest), so the next request is never sent.
    await writeFile(join(workspace, "README.md"), "a line of the readme\n".repeat(400));
    const budget = countRequestTokens(requestMessages(TASK)) + TOOL_TOKENS + 200;
    const error = await ask(loadScript("read-readme"), { contextTokens: budget }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ContextBudgetError);
    expect((error as Error).message).toMatch(
      new RegExp(
        `^the latest message needs \\d+ tokens; with the system prompt and the tools that is \\d+, more than the ${budget}-token budget: shorten the message, or raise AGENT_CONTEXT_TOKENS$`,
      ),
    );
    expect(model?.requests).toHaveLength(1);
  });
});
