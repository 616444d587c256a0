import { createServer } from "node:net";
import { loadScript, parseScript, startOfflineModel } from "@build-agent/shared/offline-model";
import type { Fault, OfflineModel } from "@build-agent/shared/offline-model";
import type { ChatCompletionTool } from "openai/resources/chat/completions";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createModelClient, streamChat } from "../src/model/model-client.ts";
import { AbortedError, describeModelError, isAbort } from "../src/model/model-errors.ts";
import { StreamCutError } from "../src/model/stream-assembler.ts";

const question = [{ role: "user" as const, content: "What is a monorepo?" }];

// A script whose reply is one tool call, to test tool-call reassembly over the wire.
const toolScript = parseScript(
  {
    name: "tool-call",
    description: "Scripted demo (offline model, no AI): one tool call.",
    steps: [
      {
        reply: {
          content: "Let me look.",
          toolCalls: [
            { id: "call_1", name: "read_file", arguments: { path: "src/main.ts", startLine: 1 } },
            { id: "call_2", name: "list_files", arguments: {} },
          ],
        },
      },
    ],
  },
  "test",
);

const tools: ChatCompletionTool[] = ["read_file", "list_files"].map((name) => ({
  type: "function",
  function: {
    name,
    description: `the ${name} tool`,
    parameters: { type: "object", properties: {} },
  },
}));

let server: OfflineModel | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await server?.close();
  server = undefined;
});

async function start(faults: Fault[] = [], script = loadScript("chat")) {
  server = await startOfflineModel({ script, faults });
  return server;
}

function clientFor(model: OfflineModel, timeoutMs = 10_000) {
  return createModelClient({ baseURL: model.baseURL, apiKey: model.apiKey, timeoutMs });
}

function context(model: OfflineModel, overrides: { timeoutMs?: number } = {}) {
  return { baseURL: model.baseURL, model: model.model, timeoutMs: 10_000, ...overrides };
}

async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.unreachable("expected the call to fail"),
    (error: unknown) => error,
  );
}

describe("streamChat through the offline model", () => {
  it("streams the answer piece by piece and reports usage", async () => {
    const model = await start();
    const pieces: string[] = [];
    const result = await streamChat({
      client: clientFor(model),
      model: model.model,
      messages: question,
      onText: (text) => pieces.push(text),
    });
    expect(pieces.length).toBeGreaterThan(1);
    expect(result.message.content).toBe(pieces.join(""));
    expect(result.message.content).toContain('You asked: "What is a monorepo?"');
    expect(result.finishReason).toBe("stop");
    expect(result.usage?.total_tokens).toBeGreaterThan(0);
    expect(model.requests[0]).toMatchObject({
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it("reassembles streamed tool calls into whole calls", async () => {
    const model = await start([], toolScript);
    const result = await streamChat({
      client: clientFor(model),
      model: model.model,
      messages: question,
      tools,
    });
    expect(model.requests[0]?.tools).toHaveLength(2);
    expect(result.finishReason).toBe("tool_calls");
    expect(result.message).toEqual({
      role: "assistant",
      content: "Let me look.",
      tool_calls: [
        {
          id: "call_1",
          type: "function",
          function: { name: "read_file", arguments: '{"path":"src/main.ts","startLine":1}' },
        },
        { id: "call_2", type: "function", function: { name: "list_files", arguments: "{}" } },
      ],
    });
  });

  it("turns a stream cut mid-tool-call into an error, never half a message", async () => {
    const model = await start([{ kind: "cut_stream_mid_tool_call" }], toolScript);
    const error = await failureOf(
      streamChat({ client: clientFor(model), model: model.model, messages: question, tools }),
    );
    expect(error).toBeInstanceOf(StreamCutError);
    expect(describeModelError(error, context(model))).toBe(
      `the answer from ${model.baseURL} was cut off before it finished: try again`,
    );
  });

  it("gives up on a stalled server after the timeout", async () => {
    const model = await start([{ kind: "stall", ms: 20_000 }]);
    const error = await failureOf(
      streamChat({ client: clientFor(model, 300), model: model.model, messages: question }),
    );
    expect(describeModelError(error, context(model, { timeoutMs: 300 }))).toBe(
      `no answer from ${model.baseURL} within 300 ms: raise AGENT_TIMEOUT_MS`,
    );
  });

  it("explains a rejected key and an unknown model in one actionable line", async () => {
    const model = await start([{ kind: "bad_key" }, { kind: "unknown_model" }]);
    const run = () =>
      streamChat({ client: clientFor(model), model: model.model, messages: question });
    expect(describeModelError(await failureOf(run()), context(model))).toBe(
      `key rejected by ${model.baseURL}: check OPENAI_API_KEY`,
    );
    expect(describeModelError(await failureOf(run()), context(model))).toBe(
      `model "offline-scripted-demo" not found at ${model.baseURL}: check AGENT_MODEL`,
    );
  });

  it("explains a server that is not running", async () => {
    const baseURL = `http://127.0.0.1:${await closedPort()}/v1`;
    const client = createModelClient({ baseURL, apiKey: "local", timeoutMs: 10_000 });
    const error = await failureOf(streamChat({ client, model: "m", messages: question }));
    expect(describeModelError(error, { baseURL, model: "m", timeoutMs: 10_000 })).toBe(
      `cannot reach ${baseURL}: is the server running? check OPENAI_BASE_URL`,
    );
  });

  it("stops cleanly when aborted mid-stream", async () => {
    server = await startOfflineModel({ script: loadScript("chat"), chunkDelayMs: 20 });
    const controller = new AbortController();
    let text = "";
    const error = await failureOf(
      streamChat({
        client: clientFor(server),
        model: server.model,
        messages: question,
        signal: controller.signal,
        onText: (piece) => {
          text += piece;
          controller.abort();
        },
      }),
    );
    expect(error).toBeInstanceOf(AbortedError);
    expect(isAbort(error)).toBe(true);
    expect(text.length).toBeGreaterThan(0);
  });

  it("does not even send a request when already aborted", async () => {
    const model = await start();
    const error = await failureOf(
      streamChat({
        client: clientFor(model),
        model: model.model,
        messages: question,
        signal: AbortSignal.abort(),
      }),
    );
    expect(isAbort(error)).toBe(true);
    expect(model.requests).toHaveLength(0);
  });
});

async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}
