import { createServer as createHttpServer, type RequestListener } from "node:http";
import { createServer } from "node:net";
import { loadScript, parseScript, startOfflineModel } from "@build-agent/shared/offline-model";
import type { Fault, OfflineModel } from "@build-agent/shared/offline-model";
import { APIError } from "openai";
import type { ChatCompletionTool } from "openai/resources/chat/completions";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createModelClient, streamChat } from "../src/model/model-client.ts";
import {
  AbortedError,
  describeModelError,
  isAbort,
  ModelTimeoutError,
} from "../src/model/model-errors.ts";
import { AnswerTooLongError, StreamCutError } from "../src/model/stream-assembler.ts";
import { streamWithRetry } from "../src/model/stream-with-retry.ts";

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

function context(model: OfflineModel, overrides: { timeoutMs?: number; maxRetries?: number } = {}) {
  return {
    baseURL: model.baseURL,
    model: model.model,
    timeoutMs: 10_000,
    maxRetries: 3,
    ...overrides,
  };
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
    expect(
      describeModelError(error, { baseURL, model: "m", timeoutMs: 10_000, maxRetries: 0 }),
    ).toBe(`cannot reach ${baseURL}: is the server running? check OPENAI_BASE_URL`);
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

describe("streamWithRetry through the offline model", () => {
  it("waits as long as a 429's Retry-After asks, then succeeds", async () => {
    const model = await start([{ kind: "rate_limit", retryAfterSeconds: 2 }]);
    const sleeps: number[] = [];
    const result = await streamWithRetry({
      client: clientFor(model),
      model: model.model,
      messages: question,
      maxRetries: 3,
      sleep: async (ms) => void sleeps.push(ms),
    });
    expect(sleeps).toEqual([2000]);
    expect(result.message.content).toContain("You asked");
    expect(model.requests).toHaveLength(2);
  });

  it("waits at most a minute, however long a hostile server asks", async () => {
    const model = await start([{ kind: "rate_limit", retryAfterSeconds: 3600 }]);
    const sleeps: number[] = [];
    await streamWithRetry({
      client: clientFor(model),
      model: model.model,
      messages: question,
      maxRetries: 3,
      sleep: async (ms) => void sleeps.push(ms),
    });
    expect(sleeps).toEqual([60_000]);
  });

  it("retries a 500 and a stall, then succeeds", async () => {
    // Only the stalled attempt may time out. On a busy machine a real 300 ms clock could also
    // run out during the good attempt, so the clock is fake and moves once the stall is in place.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const model = await start([{ kind: "server_error" }, { kind: "stall", ms: 20_000 }]);
    const retried: string[] = [];
    const answer = streamWithRetry({
      client: clientFor(model, 300),
      model: model.model,
      messages: question,
      maxRetries: 3,
      random: () => 0,
      sleep: async () => {},
      onRetry: ({ attempt, error }) =>
        retried.push(`${attempt}: ${error instanceof APIError ? error.status : String(error)}`),
    });
    await until(() => model.requests.length === 2); // the server now holds the second request
    await vi.advanceTimersByTimeAsync(300);
    const result = await answer;
    expect(retried).toEqual(["1: 500", "2: ModelTimeoutError: no answer within 300 ms"]);
    expect(result.finishReason).toBe("stop");
    expect(model.requests).toHaveLength(3);
  });

  it("reports a rate limit that outlasts the retries", async () => {
    const faults: Fault[] = [1, 2, 3].map(() => ({ kind: "rate_limit", retryAfterSeconds: 1 }));
    const model = await start(faults);
    const error = await failureOf(
      streamWithRetry({
        client: clientFor(model),
        model: model.model,
        messages: question,
        maxRetries: 2,
        sleep: async () => {},
      }),
    );
    expect(describeModelError(error, context(model, { maxRetries: 2 }))).toBe(
      `rate-limited by ${model.baseURL}, still after 2 retries: wait a minute, or raise AGENT_MAX_RETRIES`,
    );
  });

  it("does not retry once text reached the user", async () => {
    server = await startOfflineModel({ script: loadScript("chat"), chunkDelayMs: 20 });
    const model = server;
    let calls = 0;
    const error = await failureOf(
      streamWithRetry({
        client: clientFor(model),
        model: model.model,
        messages: question,
        maxRetries: 3,
        sleep: async () => {},
        onText: () => {
          calls++;
          // Simulate a connection failure after the first piece was shown.
          throw new StreamCutError();
        },
      }),
    );
    expect(error).toBeInstanceOf(StreamCutError);
    expect(calls).toBe(1);
    expect(model.requests).toHaveLength(1);
  });
});

describe("a misbehaving server", () => {
  const apiKey = "sk-test-0123456789abcdef";
  let closeFake: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await closeFake?.();
    closeFake = undefined;
  });

  /** An HTTP server answering every request with `handler`. */
  async function fakeServer(handler: RequestListener) {
    let requests = 0;
    const http = createHttpServer((request, response) => {
      requests++;
      handler(request, response);
    });
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    closeFake = () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      });
    const address = http.address();
    if (address === null || typeof address === "string") throw new Error("no port");
    const baseURL = `http://127.0.0.1:${address.port}/v1`;
    return {
      baseURL,
      context: { baseURL, model: "m", timeoutMs: 10_000, maxRetries: 0 },
      requests: () => requests,
    };
  }

  /** One streamed chunk of answer text, as a server sends it. */
  function sse(content: string): string {
    const chunk = {
      id: "c",
      object: "chat.completion.chunk",
      created: 0,
      model: "m",
      choices: [{ index: 0, delta: { content }, finish_reason: null }],
    };
    return `data: ${JSON.stringify(chunk)}\n\n`;
  }

  it("gives up on a stream that stalls after its first chunk, and hangs up", async () => {
    let hungUp = false;
    const fake = await fakeServer((_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.on("close", () => (hungUp = true));
      response.write(sse("Half an"));
      // ...and nothing more: the headers came, so the SDK's own timeout is over.
    });
    const client = createModelClient({ baseURL: fake.baseURL, apiKey, timeoutMs: 300 });
    let shown = "";
    const error = await failureOf(
      streamChat({ client, model: "m", messages: question, onText: (text) => (shown += text) }),
    );
    expect(shown).toBe("Half an");
    expect(error).toBeInstanceOf(ModelTimeoutError);
    expect(describeModelError(error, { ...fake.context, timeoutMs: 300 })).toBe(
      `no answer from ${fake.baseURL} within 300 ms: raise AGENT_TIMEOUT_MS`,
    );
    await until(() => hungUp);
  });

  it("waits for a slow stream as long as each chunk comes within the timeout", async () => {
    // Six chunks 400 ms apart: 2.4 s in all, more than the timeout, but no gap reaches it.
    const fake = await fakeServer((_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      let sent = 0;
      const timer = setInterval(() => {
        if (++sent < 6) return void response.write(sse(`${sent} `));
        clearInterval(timer);
        response.end(
          `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 0, model: "m", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}\n\ndata: [DONE]\n\n`,
        );
      }, 400);
      response.on("close", () => clearInterval(timer));
    });
    const client = createModelClient({ baseURL: fake.baseURL, apiKey, timeoutMs: 1_500 });
    const result = await streamChat({ client, model: "m", messages: question });
    expect(result.message.content).toBe("1 2 3 4 5 ");
    expect(result.finishReason).toBe("stop");
  });

  it("stops an answer that never ends at the size limit, and hangs up", async () => {
    let sent = 0;
    let hungUp = false;
    const fake = await fakeServer((_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.on("close", () => (hungUp = true));
      const piece = `data: ${JSON.stringify({
        id: "c",
        object: "chat.completion.chunk",
        created: 0,
        model: "m",
        choices: [{ index: 0, delta: { content: "la ".repeat(100) }, finish_reason: null }],
      })}\n\n`;
      // Streams forever (never a finish_reason), as fast as the client reads.
      const pump = () => {
        while (!response.destroyed && response.write(piece)) sent++;
        if (!response.destroyed) response.once("drain", pump);
      };
      pump();
    });
    const client = createModelClient({ baseURL: fake.baseURL, apiKey, timeoutMs: 10_000 });
    const error = await failureOf(
      streamChat({ client, model: "m", messages: question, maxAnswerChars: 30_000 }),
    );
    expect(error).toBeInstanceOf(AnswerTooLongError);
    expect(describeModelError(error, fake.context)).toBe(
      `the answer from ${fake.baseURL} passed 30000 characters without finishing, so it was stopped: the server may be stuck repeating itself; try again`,
    );
    await until(() => hungUp);
    expect(sent).toBeGreaterThan(100);
  });

  it("stops tool-call arguments that never end too, and does not ask again", async () => {
    const fake = await fakeServer((_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      const delta = (args: string, first: boolean) =>
        `data: ${JSON.stringify({
          id: "c",
          object: "chat.completion.chunk",
          created: 0,
          model: "m",
          choices: [
            {
              index: 0,
              delta: {
                tool_calls: [
                  first
                    ? {
                        index: 0,
                        id: "call_1",
                        type: "function",
                        function: { name: "read_file", arguments: args },
                      }
                    : { index: 0, function: { arguments: args } },
                ],
              },
              finish_reason: null,
            },
          ],
        })}\n\n`;
      response.write(delta('{"path":"', true));
      const piece = delta("a/".repeat(100), false);
      const pump = () => {
        while (!response.destroyed && response.write(piece));
        if (!response.destroyed) response.once("drain", pump);
      };
      pump();
    });
    const client = createModelClient({ baseURL: fake.baseURL, apiKey, timeoutMs: 10_000 });
    const error = await failureOf(
      streamWithRetry({
        client,
        model: "m",
        messages: question,
        maxAnswerChars: 30_000,
        maxRetries: 3,
        sleep: async () => {},
      }),
    );
    expect(error).toBeInstanceOf(AnswerTooLongError);
    expect(fake.requests()).toBe(1);
  });
});

/** Waits for a condition without timers, which a test may have faked. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}

/** A port nothing listens on: bind one, then close it. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}
