// Exercise "Say why it retries": model-errors.ts exports retryReason(error), a few words on what
// failed, and the chat's "retrying in …" line prints it.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

interface ModelClient {
  createModelClient(endpoint: { baseURL: string; apiKey: string; timeoutMs: number }): unknown;
  streamChat(options: {
    client: unknown;
    model: string;
    messages: Array<{ role: "user"; content: string }>;
  }): Promise<unknown>;
}

interface ModelErrors {
  ModelTimeoutError: new (timeoutMs: number) => Error;
  retryReason?: (error: unknown) => string;
}

interface StreamAssembler {
  StreamCutError: new () => Error;
}

/** The error the chapter's own client throws against `baseURL` (a server, or nothing at all). */
async function failureAt(modelClient: ModelClient, baseURL: string): Promise<unknown> {
  const client = modelClient.createModelClient({ baseURL, apiKey: "local", timeoutMs: 5_000 });
  return modelClient
    .streamChat({ client, model: "m", messages: [{ role: "user", content: "hi" }] })
    .then(
      () => assert.fail(`the request to ${baseURL} should fail`),
      (error: unknown) => error,
    );
}

/** Runs `use` with the URL of a server that answers every request with HTTP `status`. */
async function withStatusServer<T>(status: number, use: (url: string) => Promise<T>): Promise<T> {
  const server = createServer((_request, response) => {
    response.writeHead(status, { "content-type": "application/json" });
    response.end(JSON.stringify({ error: { message: `status ${status}`, type: "server_error" } }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    return await use(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

export default async function check(chapterDir: string): Promise<void> {
  const load = (file: string) => import(pathToFileURL(join(chapterDir, file)).href);
  const errors = (await load("src/model/model-errors.ts")) as ModelErrors;
  const modelClient = (await load("src/model/model-client.ts")) as ModelClient;
  const { StreamCutError } = (await load("src/model/stream-assembler.ts")) as StreamAssembler;
  const { retryReason } = errors;
  assert.ok(
    typeof retryReason === "function",
    "src/model/model-errors.ts should export a function retryReason(error)",
  );

  const rateLimited = await withStatusServer(429, (url) => failureAt(modelClient, url));
  assert.match(retryReason(rateLimited), /HTTP 429/, "a 429 should read like 'HTTP 429'");
  const overloaded = await withStatusServer(503, (url) => failureAt(modelClient, url));
  assert.match(retryReason(overloaded), /HTTP 503/, "a 503 should read like 'HTTP 503'");
  // Nothing listens there once the server is closed.
  const closedURL = await withStatusServer(200, async (url) => url);
  assert.match(
    retryReason(await failureAt(modelClient, closedURL)),
    /connect/i,
    "a server that is not there should read like 'connection failed'",
  );
  assert.match(
    retryReason(new errors.ModelTimeoutError(3000)),
    /3000 ms/,
    "a stall should say how long we waited, e.g. 'no answer within 3000 ms'",
  );
  assert.match(
    retryReason(new StreamCutError()),
    /cut/,
    "a cut stream should say so, e.g. 'the stream was cut off'",
  );

  const chat = await readFile(join(chapterDir, "src/context/chat.ts"), "utf8");
  assert.match(
    chat,
    /retryReason\(/,
    "the chat's 'retrying in …' line (src/context/chat.ts) should print retryReason(error), e.g. 'retrying in 1.0 s after HTTP 429 (retry 1 of 3)'",
  );
}
