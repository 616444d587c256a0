import OpenAI from "openai";
import type {
  ChatCompletionChunk,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from "openai/resources/chat/completions";
import { afterEach, describe, expect, it } from "vitest";
import { loadScript, SCRIPTED_DEMO_LABEL, startOfflineModel } from "../src/offline-model/index.ts";
import type { OfflineModel, OfflineModelOptions, Script } from "../src/offline-model/index.ts";

const running: OfflineModel[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((model) => model.close()));
});

async function start(
  options: OfflineModelOptions,
): Promise<{ model: OfflineModel; client: OpenAI }> {
  const model = await startOfflineModel(options);
  running.push(model);
  const client = new OpenAI({ baseURL: model.baseURL, apiKey: model.apiKey, maxRetries: 0 });
  return { model, client };
}

function tool(name: string): ChatCompletionTool {
  return { type: "function", function: { name, parameters: { type: "object", properties: {} } } };
}
const TOOLS = ["read_file", "list_files", "apply_patch"].map(tool);

const twoStepScript: Script = {
  name: "two-step",
  description: "test script",
  steps: [
    { reply: { content: "first answer, in several words" } },
    {
      expect: { lastMessageRole: "user", lastMessageIncludes: "again" },
      reply: { content: "second answer" },
    },
  ],
};

async function collect(stream: AsyncIterable<ChatCompletionChunk>): Promise<ChatCompletionChunk[]> {
  const chunks: ChatCompletionChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

describe("offline model over the openai SDK", () => {
  it("answers a non-streaming request with a chat.completion and usage", async () => {
    const { model, client } = await start({ script: twoStepScript });
    const completion = await client.chat.completions.create({
      model: model.model,
      messages: [{ role: "user", content: "hello" }],
    });
    expect(completion.object).toBe("chat.completion");
    expect(completion.model).toBe("offline-scripted-demo");
    expect(completion.choices[0]?.message).toMatchObject({
      role: "assistant",
      content: "first answer, in several words",
    });
    expect(completion.choices[0]?.finish_reason).toBe("stop");
    expect(completion.usage).toEqual({
      // o200k_base, as OpenAI counts: 3 to prime the reply + 3 per message + "user" (1) + "hello" (1)
      prompt_tokens: 8,
      completion_tokens: 6, // "first answer, in several words"
      total_tokens: 14,
    });
    expect(model.requests).toHaveLength(1);
    expect(model.requests[0]?.messages).toEqual([{ role: "user", content: "hello" }]);
  });

  it("streams text in several chunks: role first, then content, then finish_reason, then [DONE]", async () => {
    const { model, client } = await start({ script: twoStepScript });
    const chunks = await collect(
      await client.chat.completions.create({
        model: model.model,
        messages: [{ role: "user", content: "hello" }],
        stream: true,
      }),
    );
    expect(chunks[0]?.choices[0]?.delta.role).toBe("assistant");
    const pieces = chunks
      .map((chunk) => chunk.choices[0]?.delta.content ?? "")
      .filter((piece) => piece !== "");
    expect(pieces.length).toBeGreaterThan(3);
    expect(pieces.join("")).toBe("first answer, in several words");
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe("stop");
    expect(chunks.every((chunk) => chunk.usage === undefined)).toBe(true);
  });

  it("sends a final usage chunk with empty choices when include_usage is set", async () => {
    const { model, client } = await start({ script: twoStepScript });
    const chunks = await collect(
      await client.chat.completions.create({
        model: model.model,
        messages: [{ role: "user", content: "hello" }],
        stream: true,
        stream_options: { include_usage: true },
      }),
    );
    const last = chunks.at(-1);
    expect(last?.choices).toEqual([]);
    expect(last?.usage).toEqual({ prompt_tokens: 8, completion_tokens: 6, total_tokens: 14 });
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe("stop");
    expect(chunks.slice(0, -1).every((chunk) => chunk.usage === null)).toBe(true);
  });

  it("streams tool calls: the first delta names the call, the arguments arrive in pieces", async () => {
    const script = loadScript("fix-bug");
    const { model, client } = await start({ script });
    const chunks = await collect(
      await client.chat.completions.create({
        model: model.model,
        messages: [{ role: "user", content: "fix the failing check" }],
        tools: TOOLS,
        stream: true,
      }),
    );
    const deltas = chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? []);
    expect(deltas[0]).toEqual({
      index: 0,
      id: "call_read_cart",
      type: "function",
      function: { name: "read_file", arguments: "" },
    });
    const argumentPieces = deltas.slice(1).map((delta) => delta.function?.arguments ?? "");
    expect(argumentPieces.length).toBeGreaterThan(1);
    expect(deltas.slice(1).every((delta) => delta.id === undefined && delta.index === 0)).toBe(
      true,
    );
    expect(JSON.parse(argumentPieces.join(""))).toEqual({ path: "src/cart.mjs" });
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe("tool_calls");
  });

  it("is reassembled by the SDK's stream helper into a complete message", async () => {
    const { model, client } = await start({ script: loadScript("fix-bug") });
    const stream = client.chat.completions.stream({
      model: model.model,
      messages: [{ role: "user", content: "fix it" }],
      tools: TOOLS,
    });
    const completion = await stream.finalChatCompletion();
    const message = completion.choices[0]?.message;
    expect(message?.content).toBe(script("fix-bug").steps[0]?.reply.content);
    expect(message?.tool_calls).toEqual([
      {
        id: "call_read_cart",
        type: "function",
        function: { name: "read_file", arguments: '{"path":"src/cart.mjs"}' },
      },
    ]);
  });

  it("replays the fix-bug script step by step, checking tool results", async () => {
    const { model, client } = await start({ script: loadScript("fix-bug") });
    const messages: ChatCompletionMessageParam[] = [
      { role: "user", content: "fix the failing check" },
    ];
    const names: string[] = [];
    for (;;) {
      const completion = await client.chat.completions.create({
        model: model.model,
        messages,
        tools: TOOLS,
      });
      const message = completion.choices[0]!.message;
      messages.push(message);
      if (!message.tool_calls) break;
      for (const call of message.tool_calls) {
        if (call.type !== "function") throw new Error("unexpected tool call type");
        names.push(call.function.name);
        messages.push({ role: "tool", tool_call_id: call.id, content: "ok" });
      }
    }
    expect(names).toEqual(["read_file", "apply_patch"]);
    expect(messages.at(-1)?.content).toContain("Fixed src/cart.mjs");
    expect(model.requests).toHaveLength(3);
  });

  it("replays the chat script for many turns, echoing the question", async () => {
    const { model, client } = await start({ script: loadScript("chat") });
    const messages: ChatCompletionMessageParam[] = [];
    for (const question of ["What is an agent?", "And a tool?", "Thanks!"]) {
      messages.push({ role: "user", content: question });
      const completion = await client.chat.completions.create({ model: model.model, messages });
      const content = completion.choices[0]?.message.content ?? "";
      expect(content).toContain(`You asked: "${question}"`);
      expect(content).toContain("Scripted demo");
      expect(content).toContain("OPENAI_API_KEY");
      messages.push({ role: "assistant", content });
    }
  });

  it("reads the question from array-form content too", async () => {
    const { model, client } = await start({ script: loadScript("chat") });
    const completion = await client.chat.completions.create({
      model: model.model,
      messages: [{ role: "user", content: [{ type: "text", text: "parts work?" }] }],
    });
    expect(completion.choices[0]?.message.content).toContain('You asked: "parts work?"');
  });

  it("lists its model", async () => {
    const { model, client } = await start({ script: twoStepScript, model: "my-model" });
    const models = [];
    for await (const entry of client.models.list()) models.push(entry.id);
    expect(models).toEqual(["my-model"]);
    expect(model.model).toBe("my-model");
  });

  it("exports a label for its output", () => {
    expect(SCRIPTED_DEMO_LABEL).toBe("scripted demo (offline model, no AI)");
  });
});

describe("beforeStep", () => {
  it("runs before each step is replied, with the step's index, and the reply waits for it", async () => {
    const seen: string[] = [];
    const { model, client } = await start({
      script: twoStepScript,
      beforeStep: async (index) => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        seen.push(`step ${index}`);
      },
    });
    const ask = (messages: Array<{ role: "user" | "assistant"; content: string }>) =>
      client.chat.completions.create({ model: model.model, messages });
    await ask([{ role: "user", content: "hello" }]);
    expect(seen).toEqual(["step 0"]);
    await ask([
      { role: "user", content: "hello" },
      { role: "assistant", content: "first answer, in several words" },
      { role: "user", content: "again" },
    ]);
    expect(seen).toEqual(["step 0", "step 1"]);
  });
});

describe("off-script requests", () => {
  async function offScriptMessage(
    options: OfflineModelOptions,
    messages: ChatCompletionMessageParam[],
    tools?: ChatCompletionTool[],
  ) {
    const { model, client } = await start(options);
    const error = await client.chat.completions
      .create({ model: model.model, messages, ...(tools ? { tools } : {}) })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).code).toBe("off_script");
    return (error as Error).message;
  }

  it("says when the script is over", async () => {
    const message = await offScriptMessage({ script: twoStepScript }, [
      { role: "user", content: "a" },
      { role: "assistant", content: "b" },
      { role: "user", content: "again" },
      { role: "assistant", content: "c" },
      { role: "user", content: "more" },
    ]);
    expect(message).toBe(
      '400 off script: script "two-step" has 2 steps (0-1), but the request holds 2 assistant messages, so it asks for step 2. The scripted demo is over: start a new conversation.',
    );
  });

  it("names the expected text and what arrived", async () => {
    const message = await offScriptMessage({ script: twoStepScript }, [
      { role: "user", content: "a" },
      { role: "assistant", content: "b" },
      { role: "user", content: "something else" },
    ]);
    expect(message).toBe(
      '400 off script: script "two-step", step 1 expected the last message to include "again", but the last message is a user message "something else".',
    );
  });

  it("names the expected tool result and the ones that arrived", async () => {
    const message = await offScriptMessage(
      { script: loadScript("fix-bug") },
      [
        { role: "user", content: "fix it" },
        {
          role: "assistant",
          content: null,
          tool_calls: [
            {
              id: "call_other",
              type: "function",
              function: { name: "read_file", arguments: "{}" },
            },
          ],
        },
        { role: "tool", tool_call_id: "call_other", content: "..." },
      ],
      TOOLS,
    );
    expect(message).toBe(
      '400 off script: script "fix-bug", step 1 expected a tool result for call "call_read_cart", but the tool results after the last assistant message are for "call_other".',
    );
  });

  it("names the expected role", async () => {
    const message = await offScriptMessage({ script: twoStepScript }, [
      { role: "user", content: "a" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "call_1", type: "function", function: { name: "read_file", arguments: "{}" } },
        ],
      },
      { role: "tool", tool_call_id: "call_1", content: "..." },
    ]);
    expect(message).toBe(
      '400 off script: script "two-step", step 1 expected the last message to be a user message, but the last message is a tool result for call "call_1".',
    );
  });

  it("refuses to call a tool the request does not declare", async () => {
    const message = await offScriptMessage(
      { script: loadScript("fix-bug") },
      [{ role: "user", content: "fix it" }],
      [tool("list_files")],
    );
    expect(message).toBe(
      '400 off script: script "fix-bug", step 0 calls the tool "read_file", but the request does not declare it (declared: list_files). Pass a tool named "read_file" in "tools".',
    );
  });
});

function script(name: string): Script {
  return loadScript(name);
}
