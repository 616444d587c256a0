// Exercise "Retry a 503 but not a 501": isRetryable gives up on 501 Not Implemented (the same
// request will fail again) and still retries 500, 502 and 503.
import assert from "node:assert/strict";
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

interface Retry {
  isRetryable(error: unknown): boolean;
}

/** The error the chapter's own client throws when a server answers with `status`. */
async function errorFor(chapterDir: string, status: number): Promise<unknown> {
  const modelClient = (await import(
    pathToFileURL(join(chapterDir, "src/model/model-client.ts")).href
  )) as ModelClient;
  // A server that answers every request with this status and OpenAI's error JSON.
  const server = createServer((_request, response) => {
    response.writeHead(status, { "content-type": "application/json" });
    response.end(JSON.stringify({ error: { message: `status ${status}`, type: "server_error" } }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  try {
    const client = modelClient.createModelClient({
      baseURL: `http://127.0.0.1:${port}/v1`,
      apiKey: "local",
      timeoutMs: 5_000,
    });
    return await modelClient
      .streamChat({ client, model: "m", messages: [{ role: "user", content: "hi" }] })
      .then(
        () => assert.fail(`a ${status} answer should make streamChat fail`),
        (error: unknown) => error,
      );
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

export default async function check(chapterDir: string): Promise<void> {
  const retry = (await import(pathToFileURL(join(chapterDir, "src/model/retry.ts")).href)) as Retry;
  assert.equal(
    retry.isRetryable(await errorFor(chapterDir, 501)),
    false,
    "isRetryable should refuse a 501 Not Implemented: the same request will fail again",
  );
  for (const status of [500, 502, 503]) {
    assert.equal(
      retry.isRetryable(await errorFor(chapterDir, status)),
      true,
      `isRetryable should still retry a ${status}: an overloaded server may answer next time`,
    );
  }
}
