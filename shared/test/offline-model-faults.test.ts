import OpenAI from "openai";
import type { ChatCompletionChunk, ChatCompletionTool } from "openai/resources/chat/completions";
import { afterEach, describe, expect, it } from "vitest";
import { loadScript, startOfflineModel } from "../src/offline-model/index.ts";
import type { Fault, OfflineModel } from "../src/offline-model/index.ts";

const running: OfflineModel[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((model) => model.close()));
});

const TOOLS: ChatCompletionTool[] = ["read_file", "apply_patch"].map((name) => ({
  type: "function",
  function: { name, parameters: { type: "object", properties: {} } },
}));

async function start(
  faults: Fault[],
  clientOptions: { maxRetries?: number; timeout?: number; apiKey?: string } = {},
) {
  const model = await startOfflineModel({ script: loadScript("fix-bug"), faults });
  running.push(model);
  const client = new OpenAI({
    baseURL: model.baseURL,
    apiKey: model.apiKey,
    maxRetries: 0,
    ...clientOptions,
  });
  const request = (modelName = model.model) => ({
    model: modelName,
    messages: [{ role: "user" as const, content: "fix it" }],
    tools: TOOLS,
  });
  const ask = (modelName?: string) => client.chat.completions.create(request(modelName));
  const askStream = () => client.chat.completions.create({ ...request(), stream: true });
  return { model, client, ask, askStream };
}

describe("fault injection, seen through the openai SDK", () => {
  it("rate_limit: 429 with Retry-After and OpenAI's error JSON", async () => {
    const { ask } = await start([{ kind: "rate_limit", retryAfterSeconds: 7 }]);
    const error = await ask().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    const rateLimit = error as InstanceType<typeof OpenAI.RateLimitError>;
    expect(rateLimit.status).toBe(429);
    expect(rateLimit.headers.get("retry-after")).toBe("7");
    expect(rateLimit.code).toBe("rate_limit_exceeded");
    expect(rateLimit.message).toBe(
      "429 Rate limit reached (offline model: injected fault rate_limit). Please try again in 7s.",
    );
  });

  it("rate_limit: the SDK retries after Retry-After and then gets the scripted reply", async () => {
    const { model, ask } = await start([{ kind: "rate_limit", retryAfterSeconds: 0.2 }], {
      maxRetries: 1,
    });
    const completion = await ask();
    expect(completion.choices[0]?.message.tool_calls?.[0]?.id).toBe("call_read_cart");
    // The faulted request did not use up step 0: the retry got it.
    expect(model.requests).toHaveLength(2);
  });

  it("server_error: 500", async () => {
    const { ask } = await start([{ kind: "server_error" }]);
    const error = await ask().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect((error as InstanceType<typeof OpenAI.InternalServerError>).status).toBe(500);
  });

  it("faults are used up one per request, in order", async () => {
    const { ask } = await start([
      { kind: "server_error" },
      { kind: "rate_limit", retryAfterSeconds: 1 },
    ]);
    await expect(ask()).rejects.toBeInstanceOf(OpenAI.InternalServerError);
    await expect(ask()).rejects.toBeInstanceOf(OpenAI.RateLimitError);
    const completion = await ask();
    expect(completion.choices[0]?.finish_reason).toBe("tool_calls");
  });

  it("stall: a client timeout shorter than the stall gives APIConnectionTimeoutError", async () => {
    const { ask } = await start([{ kind: "stall", ms: 20_000 }], { timeout: 200 });
    await expect(ask()).rejects.toBeInstanceOf(OpenAI.APIConnectionTimeoutError);
  });

  it("stall: a patient client gets the scripted reply after the wait", async () => {
    const { ask } = await start([{ kind: "stall", ms: 50 }]);
    const completion = await ask();
    expect(completion.choices[0]?.message.tool_calls?.[0]).toMatchObject({
      function: { name: "read_file", arguments: '{"path":"src/cart.mjs"}' },
    });
  });

  it("cut_stream_mid_tool_call: the stream iterator throws after part of the arguments", async () => {
    const { askStream } = await start([{ kind: "cut_stream_mid_tool_call" }]);
    const stream = await askStream();
    const received: ChatCompletionChunk[] = [];
    const error = await (async () => {
      for await (const chunk of stream) received.push(chunk);
    })().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Error);
    const args = received
      .flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? [])
      .map((delta) => delta.function?.arguments ?? "")
      .join("");
    expect(args.length).toBeGreaterThan(0);
    expect(args.length).toBeLessThan('{"path":"src/cart.mjs"}'.length);
    expect(received.some((chunk) => chunk.choices[0]?.finish_reason)).toBe(false);
  });

  it("cut_stream_mid_tool_call: a non-streaming request loses its connection", async () => {
    const { ask } = await start([{ kind: "cut_stream_mid_tool_call" }]);
    await expect(ask()).rejects.toBeInstanceOf(Error);
  });

  it("malformed_tool_arguments: the first tool call's arguments are not valid JSON", async () => {
    const { ask, askStream } = await start([
      { kind: "malformed_tool_arguments" },
      { kind: "malformed_tool_arguments" },
    ]);
    const completion = await ask();
    const args = completion.choices[0]?.message.tool_calls?.[0];
    expect(args?.type === "function" && args.function.arguments).toBe('{"path":"src/cart.mjs"');
    // Streamed, the pieces join up to the same broken text.
    const stream = await askStream();
    let streamed = "";
    for await (const chunk of stream) {
      for (const delta of chunk.choices[0]?.delta.tool_calls ?? [])
        streamed += delta.function?.arguments ?? "";
    }
    expect(streamed).toBe('{"path":"src/cart.mjs"');
    expect(() => JSON.parse(streamed)).toThrow();
  });

  it("unknown_model: 404 model_not_found, also for a real wrong model name", async () => {
    const { ask } = await start([{ kind: "unknown_model" }]);
    const error = await ask().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect((error as InstanceType<typeof OpenAI.NotFoundError>).code).toBe("model_not_found");
    const wrong = await ask("gpt-nothing").catch((caught: unknown) => caught);
    expect((wrong as Error).message).toBe(
      "404 The model `gpt-nothing` does not exist or you do not have access to it.",
    );
  });

  it("bad_key: 401 invalid_api_key, also for a real wrong key, which is never echoed", async () => {
    const { ask } = await start([{ kind: "bad_key" }]);
    const error = await ask().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((error as InstanceType<typeof OpenAI.AuthenticationError>).code).toBe("invalid_api_key");

    const wrongKey = await start([], { apiKey: "sk-secret-value" });
    const wrong = await wrongKey.ask().catch((caught: unknown) => caught);
    expect(wrong).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((wrong as Error).message).toBe(
      "401 Incorrect API key provided. The offline model accepts only the key it was started with.",
    );
  });

  it("echo_key: 400 whose message quotes the key the client sent, right or wrong", async () => {
    const { model, ask } = await start([{ kind: "echo_key" }], { apiKey: "sk-demo-not-a-key" });
    const error = await ask().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as Error).message).toBe(
      "400 Malformed request (offline model: injected fault echo_key). The request was sent with Authorization: Bearer sk-demo-not-a-key",
    );
    // Used up: the next request is checked as usual, and this key is the wrong one.
    const next = await ask().catch((caught: unknown) => caught);
    expect(next).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(model.requests).toHaveLength(2);
  });

  it("context_window: a request over the window gets 400 context_length_exceeded, every time", async () => {
    const { model, client, ask } = await start([{ kind: "context_window", tokens: 60 }]);
    // The request of `ask` (one short message and two tools) fits in 60 tokens, so it is answered;
    // the window is not used up by it.
    const prompt = (await ask()).usage?.prompt_tokens ?? 0;
    expect(prompt).toBeGreaterThan(0);
    expect(prompt).toBeLessThanOrEqual(60);
    const long = "word ".repeat(100);
    const big = () =>
      client.chat.completions.create({
        model: model.model,
        messages: [{ role: "user", content: long }],
        tools: TOOLS,
      });
    for (let i = 0; i < 2; i++) {
      const error = await big().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
      const refused = error as InstanceType<typeof OpenAI.BadRequestError>;
      expect(refused.code).toBe("context_length_exceeded");
      // "fix it" is 2 tokens, "word " 100 times is 101: 99 more.
      expect(refused.message).toBe(
        `400 This model's maximum context length is 60 tokens. However, your messages resulted in ${prompt + 99} tokens. Please reduce the length of the messages. (offline model: injected fault context_window)`,
      );
    }
    // The refusals did not use up a script step: the next request that fits gets step 0 again.
    const again = await ask();
    expect(again.choices[0]?.message.tool_calls?.[0]?.id).toBe("call_read_cart");
  });

  it("context_window stays put while the other faults are used up in order", async () => {
    const { ask } = await start([
      { kind: "server_error" },
      { kind: "context_window", tokens: 10 },
      { kind: "rate_limit", retryAfterSeconds: 1 },
    ]);
    await expect(ask()).rejects.toBeInstanceOf(OpenAI.InternalServerError);
    await expect(ask()).rejects.toBeInstanceOf(OpenAI.RateLimitError);
    await expect(ask()).rejects.toBeInstanceOf(OpenAI.BadRequestError);
    await expect(ask()).rejects.toBeInstanceOf(OpenAI.BadRequestError);
  });

  it("a fault that needs a tool call on a step without one is reported as a setup mistake", async () => {
    const model = await startOfflineModel({
      script: loadScript("chat"),
      faults: [{ kind: "malformed_tool_arguments" }],
    });
    running.push(model);
    const client = new OpenAI({ baseURL: model.baseURL, apiKey: model.apiKey, maxRetries: 0 });
    const error = await client.chat.completions
      .create({ model: model.model, messages: [{ role: "user", content: "hi" }] })
      .catch((caught: unknown) => caught);
    expect((error as Error).message).toBe(
      '400 offline model setup: the fault malformed_tool_arguments needs a reply with a tool call, but step 0 of script "chat" calls no tool. Put the fault where the script calls a tool.',
    );
  });
});
