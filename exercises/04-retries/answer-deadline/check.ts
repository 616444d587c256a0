// Exercise "A deadline for the whole answer": streamChat takes an optional deadlineMs and gives
// up with a ModelTimeoutError when the answer has not finished by then, even though chunks keep
// arriving well within the idle timeout.
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { loadScript, startOfflineModel } from "../../../shared/src/offline-model/index.ts";

interface ModelClient {
  createModelClient(endpoint: { baseURL: string; apiKey: string; timeoutMs: number }): unknown;
  streamChat(options: {
    client: unknown;
    model: string;
    messages: Array<{ role: "user"; content: string }>;
    signal?: AbortSignal;
    deadlineMs?: number;
  }): Promise<{ message: { content: string | null } }>;
}

interface ModelErrors {
  ModelTimeoutError: abstract new (timeoutMs: number) => Error & { timeoutMs: number };
}

const DEADLINE_MS = 150;
/** How long the check waits for the deadline to act before calling it ignored. */
const PATIENCE_MS = 600;

export default async function check(chapterDir: string): Promise<void> {
  const load = (file: string) => import(pathToFileURL(join(chapterDir, file)).href);
  const { createModelClient, streamChat } = (await load(
    "src/model/model-client.ts",
  )) as ModelClient;
  const { ModelTimeoutError } = (await load("src/model/model-errors.ts")) as ModelErrors;
  const messages = [{ role: "user" as const, content: "What is a monorepo?" }];

  // A server that trickles: a chunk every 20 ms, far inside the 10 s idle timeout.
  const slow = await startOfflineModel({ script: loadScript("chat"), chunkDelayMs: 20 });
  const controller = new AbortController();
  try {
    const client = createModelClient({
      baseURL: slow.baseURL,
      apiKey: slow.apiKey,
      timeoutMs: 10_000,
    });
    const started = Date.now();
    const answer = streamChat({
      client,
      model: slow.model,
      messages,
      signal: controller.signal,
      deadlineMs: DEADLINE_MS,
    });
    let patience: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      answer.then(
        () => ({ kind: "finished" as const }),
        (error: unknown) => ({ kind: "failed" as const, error }),
      ),
      new Promise<{ kind: "waiting" }>((resolve) => {
        patience = setTimeout(() => resolve({ kind: "waiting" }), PATIENCE_MS);
      }),
    ]);
    clearTimeout(patience);
    controller.abort();
    await answer.catch(() => {});
    assert.notEqual(
      outcome.kind,
      "waiting",
      `streamChat was still streaming ${PATIENCE_MS} ms after a ${DEADLINE_MS} ms deadlineMs: the deadline is ignored`,
    );
    assert.notEqual(
      outcome.kind,
      "finished",
      `streamChat finished a slow answer despite a ${DEADLINE_MS} ms deadlineMs`,
    );
    const error = outcome.kind === "failed" ? outcome.error : undefined;
    assert.ok(
      error instanceof ModelTimeoutError,
      `a missed deadline should be a ModelTimeoutError, got ${String(error)}`,
    );
    assert.equal(error.timeoutMs, DEADLINE_MS, "the ModelTimeoutError should carry deadlineMs");
    assert.ok(Date.now() - started < PATIENCE_MS, "the deadline should act on time");
  } finally {
    controller.abort();
    await slow.close();
  }

  // A generous deadline changes nothing for an answer that arrives in time.
  const fast = await startOfflineModel({ script: loadScript("chat") });
  try {
    const client = createModelClient({
      baseURL: fast.baseURL,
      apiKey: fast.apiKey,
      timeoutMs: 10_000,
    });
    const result = await streamChat({ client, model: fast.model, messages, deadlineMs: 5_000 });
    assert.match(
      result.message.content ?? "",
      /You asked/,
      "an answer in time should be returned whole",
    );
  } finally {
    await fast.close();
  }
}
