// Exercise "The key in a cause": an error may wrap another (`cause`), and a logger that prints the
// whole error (console.error, util.inspect) prints the cause's message and stack too. redactError
// must clean the whole chain, and stop on a chain that loops.
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { inspect } from "node:util";

interface ModelErrors {
  redactError(error: unknown, apiKey: string): unknown;
}

export default async function check(chapterDir: string): Promise<void> {
  const { redactError } = (await import(
    pathToFileURL(join(chapterDir, "src/model/model-errors.ts")).href
  )) as ModelErrors;
  const key = "sk-fake-key-not-a-real-one-0123";

  const root = new Error(`upstream said: Bearer ${key}`);
  const middle = new Error("request failed", { cause: root });
  const outer = new Error(`stream ended: ${key}`, { cause: middle });
  assert.equal(redactError(outer, key), outer, "redactError still returns the same error");
  assert.equal(outer.message, "stream ended: sk-…(redacted)");
  assert.equal(
    root.message,
    "upstream said: Bearer sk-…(redacted)",
    "the cause of a cause must be cleaned too: follow error.cause down the chain",
  );
  assert.ok(!(root.stack ?? "").includes(key), "a cause's stack must be cleaned as well");
  assert.ok(
    !inspect(outer).includes(key),
    "console.error(error) prints the error with its causes: the key must not be in it",
  );

  // A chain that loops must end, not hang.
  const a = new Error(`a ${key}`);
  const b = new Error(`b ${key}`, { cause: a });
  a.cause = b;
  redactError(a, key);
  assert.equal(b.message, "b sk-…(redacted)", "a looping chain is cleaned once and ends");

  // A cause that is not an Error is left as it is.
  const odd = new Error("odd", { cause: { detail: "not an Error" } });
  redactError(odd, key);
  assert.deepEqual(odd.cause, { detail: "not an Error" });
}
