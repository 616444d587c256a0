// Exercise "A limit on parallel reads": runToolBatch runs at most 8 calls of a group at the same
// time, still more than one, and still answers every call in the model's order.
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

interface Call {
  id: string;
  function: { name: string; arguments: string };
}
interface Result {
  tool_call_id: string;
  ok: boolean;
  content: string;
}
interface BatchModule {
  runToolBatch(
    calls: readonly Call[],
    options: {
      run: (call: Call) => Promise<Result>;
      effectOf: (name: string) => "read" | "write" | undefined;
      signal: AbortSignal;
      stopReason: () => string;
    },
  ): Promise<Result[]>;
}

const LIMIT = 8;

export default async function check(chapterDir: string): Promise<void> {
  const url = pathToFileURL(join(chapterDir, "src/loop/tool-batch.ts")).href;
  const { runToolBatch } = (await import(url)) as BatchModule;

  let running = 0;
  let most = 0;
  // A read that takes a few event-loop turns, so every call that may run together does overlap.
  const run = async (call: Call): Promise<Result> => {
    most = Math.max(most, ++running);
    for (let i = 0; i < 3; i++) await new Promise<void>((resolve) => setImmediate(resolve));
    running--;
    return { tool_call_id: call.id, ok: true, content: `read ${call.id}` };
  };
  const calls: Call[] = Array.from({ length: 50 }, (_, i) => ({
    id: `r${i}`,
    function: { name: "read_file", arguments: "{}" },
  }));
  const results = await runToolBatch(calls, {
    run,
    effectOf: () => "read",
    signal: new AbortController().signal,
    stopReason: () => "the user pressed Ctrl-C",
  });

  assert.ok(
    most <= LIMIT,
    `50 reads in one message ran ${most} at the same time; at most ${LIMIT} should`,
  );
  assert.equal(
    most,
    LIMIT,
    `reads should still run in parallel, ${LIMIT} at a time (at most ${most} ran together)`,
  );
  assert.deepEqual(
    results.map((result) => result.tool_call_id),
    calls.map((call) => call.id),
    "every call should get exactly one result, in the order the model asked for them",
  );
}
