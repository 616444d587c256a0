import { createServer, type RequestListener } from "node:http";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { loadScript, startOfflineModel } from "@build-agent/shared/offline-model";
import { makeTempDir, runCommand } from "@build-agent/shared/test-helpers";
import { rm } from "node:fs/promises";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createModelClient, streamChat } from "../src/model/model-client.ts";
import { describeModelError, redactError, redactKey } from "../src/model/model-errors.ts";
import { streamWithRetry } from "../src/model/stream-with-retry.ts";

// Clearly fake, and long enough to count as a secret.
const apiKey = "sk-test-not-a-real-key-0123456789";
const question = [{ role: "user" as const, content: "What is a monorepo?" }];

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** An HTTP server answering every request with `handler`; counts the requests. */
async function listen(handler: RequestListener) {
  let requests = 0;
  const http = createServer((request, response) => {
    requests++;
    handler(request, response);
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const close = () =>
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
    close,
  };
}

/** `listen`, closed after the test. */
async function fakeServer(handler: RequestListener) {
  const server = await listen(handler);
  closers.push(server.close);
  return server;
}

/** A JSON error response whose body quotes the request's Authorization header. */
function echoing(status: number, body: (authorization: string) => unknown): RequestListener {
  return (request, response) => {
    response.writeHead(status, { "content-type": "application/json" });
    response.end(JSON.stringify(body(request.headers.authorization ?? "")));
  };
}

async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.unreachable("expected the call to fail"),
    (error: unknown) => error,
  );
}

describe("redactKey", () => {
  it("replaces every copy of the key by its first three characters", () => {
    expect(redactKey(`no: ${apiKey}, ${apiKey}`, apiKey)).toBe(
      "no: sk-…(redacted), sk-…(redacted)",
    );
    expect(redactKey("nothing secret here", apiKey)).toBe("nothing secret here");
  });

  it("leaves short placeholder keys alone: hiding 'local' would garble 'localhost'", () => {
    expect(redactKey("cannot reach http://localhost:11434/v1", "local")).toBe(
      "cannot reach http://localhost:11434/v1",
    );
    expect(redactKey("key 1234567 and 12345678", "1234567")).toBe("key 1234567 and 12345678");
    expect(redactKey("key 12345678", "12345678")).toBe("key 123…(redacted)");
  });

  it("redactError cleans message and stack in place, and passes anything else through", () => {
    const error = new Error(`echo: Bearer ${apiKey}`);
    expect(redactError(error, apiKey)).toBe(error);
    expect(error.message).toBe("echo: Bearer sk-…(redacted)");
    expect(error.stack).toContain("echo: Bearer sk-…(redacted)");
    expect(error.stack).not.toContain(apiKey);
    expect(redactError(`thrown ${apiKey}`, apiKey)).toBe(`thrown ${apiKey}`);
  });
});

describe("a server that echoes the key", () => {
  it("never shows it in a retry notice, the final line or the stack", async () => {
    // A 500 whose body quotes the request's Authorization header: retried, then final.
    const fake = await fakeServer(
      echoing(500, (authorization) => ({ error: { message: `bad request: ${authorization}` } })),
    );
    const client = createModelClient({ baseURL: fake.baseURL, apiKey, timeoutMs: 10_000 });
    const notices: string[] = [];
    const error = await failureOf(
      streamWithRetry({
        client,
        model: "m",
        messages: question,
        maxRetries: 1,
        sleep: async () => {},
        onRetry: ({ error }) => notices.push(String(error)),
      }),
    );
    expect(describeModelError(error, { ...fake.context, maxRetries: 1 })).toBe(
      `${fake.baseURL} failed with HTTP 500, still after 1 retry: try again later`,
    );
    expect(notices).toEqual(["Error: 500 bad request: Bearer sk-…(redacted)"]);
    expect(String(error)).toBe("Error: 500 bad request: Bearer sk-…(redacted)");
    expect((error as Error).stack).not.toContain(apiKey);
    expect(fake.requests()).toBe(2);
  });

  it("redacts it from a 4xx message, which is shown as the server wrote it", async () => {
    const fake = await fakeServer(
      echoing(400, (authorization) => ({ error: { message: `echo: ${authorization}` } })),
    );
    const client = createModelClient({ baseURL: fake.baseURL, apiKey, timeoutMs: 10_000 });
    const error = await failureOf(streamChat({ client, model: "m", messages: question }));
    expect(describeModelError(error, fake.context)).toBe(
      `${fake.baseURL} returned an error: 400 echo: Bearer sk-…(redacted)`,
    );
  });

  it("redacts the offline model's echo_key fault", async () => {
    const model = await startOfflineModel({
      script: loadScript("chat"),
      faults: [{ kind: "echo_key" }],
      apiKey,
    });
    closers.push(() => model.close());
    const client = createModelClient({ baseURL: model.baseURL, apiKey, timeoutMs: 10_000 });
    const error = await failureOf(streamChat({ client, model: model.model, messages: question }));
    expect((error as Error).message).toBe(
      "400 Malformed request (offline model: injected fault echo_key). The request was sent with Authorization: Bearer sk-…(redacted)",
    );
  });

  it("redacts an error that arrives inside the stream", async () => {
    const fake = await fakeServer((request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      const error = { message: `stream failed for ${request.headers.authorization}` };
      response.end(`data: ${JSON.stringify({ error })}\n\n`);
    });
    const client = createModelClient({ baseURL: fake.baseURL, apiKey, timeoutMs: 10_000 });
    const error = await failureOf(streamChat({ client, model: "m", messages: question }));
    expect((error as Error).message).toBe("stream failed for Bearer sk-…(redacted)");
  });
});

// The hostile run: the chapter's own program, as a child process, against servers that put the
// key everywhere they can. Whatever path an error takes to the terminal, the key is not on it.
describe.concurrent("the program against a server that echoes the key everywhere", () => {
  const main = fileURLToPath(new URL("../src/main.ts", import.meta.url));
  const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
  const dirs: string[] = [];
  afterAll(async () => {
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  // Each test closes its own server: they run at the same time.
  async function runAgainst(handler: RequestListener, retries = "0") {
    const fake = await listen(handler);
    const dir = await makeTempDir("ch05-key-");
    dirs.push(dir);
    const result = await runCommand(
      process.execPath,
      ["--import", tsxLoader, main, "hi", "--repo", dir],
      {
        cwd: dir,
        env: {
          OPENAI_API_KEY: apiKey,
          OPENAI_BASE_URL: fake.baseURL,
          AGENT_MODEL: "m",
          AGENT_MAX_RETRIES: retries,
          AGENT_TIMEOUT_MS: undefined,
          INIT_CWD: undefined,
          NO_COLOR: "1",
        },
      },
    ).finally(fake.close);
    return { ...result, output: result.stdout + result.stderr };
  }

  /** Echoes in the headers too: the SDK keeps them on the error. */
  const withHeaders =
    (status: number, body: (authorization: string) => string): RequestListener =>
    (request, response) => {
      const authorization = request.headers.authorization ?? "";
      response.writeHead(status, {
        "content-type": status === 200 ? "text/event-stream" : "application/json",
        "x-echo-authorization": authorization,
      });
      response.end(body(authorization));
    };

  const cases: [string, RequestListener, string][] = [
    [
      "in the message of a 400",
      withHeaders(400, (auth) => JSON.stringify({ error: { message: `echo: ${auth}` } })),
      "returned an error: 400 echo: Bearer sk-…(redacted)",
    ],
    [
      "in a message that is nested JSON",
      withHeaders(400, (auth) =>
        JSON.stringify({ error: { message: { request: { headers: { authorization: auth } } } } }),
      ),
      'returned an error: 400 {"request":{"headers":{"authorization":"Bearer sk-…(redacted)"}}}',
    ],
    [
      "in a body with no error field",
      withHeaders(422, (auth) => JSON.stringify({ detail: [{ input: { authorization: auth } }] })),
      // The SDK reads only a body's "error" field, so there is no message to clean.
      "returned an error: 422 status code (no body)",
    ],
    [
      "in an error event inside the stream",
      withHeaders(
        200,
        (auth) => `data: ${JSON.stringify({ error: { message: `no: ${auth}` } })}\n\n`,
      ),
      "returned an error: no: Bearer sk-…(redacted)",
    ],
    [
      "in a stream line that is not JSON",
      withHeaders(200, (auth) => `data: {"not json, ${auth}\n\n`),
      "unexpected error:",
    ],
    [
      "in the 401 of a rejected key",
      withHeaders(401, (auth) => JSON.stringify({ error: { message: `bad key ${auth}` } })),
      "key rejected by",
    ],
  ];

  for (const [where, handler, shown] of cases) {
    it(`never prints the key when it comes back ${where}`, async ({ expect }) => {
      const result = await runAgainst(handler);
      expect(result.code).toBe(1);
      expect(result.output).toContain(shown); // stderr here; the Agent Loop (chapter 18) prints it on stdout
      expect(result.output).not.toContain(apiKey);
    });
  }

  it("never prints the key while retrying a 500 that echoes it", async ({ expect }) => {
    const result = await runAgainst(
      withHeaders(500, (auth) => JSON.stringify({ error: { message: `oops ${auth}` } })),
      "1",
    );
    expect(result.code).toBe(1);
    expect(result.output).toContain("failed with HTTP 500, still after 1 retry");
    expect(result.output).not.toContain(apiKey);
  });
});
