// Exercise "The key, URL-encoded": a server that echoes the request's URL or a form body shows
// the key percent-encoded, and redactKey must hide that form too.
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

interface ModelErrors {
  redactKey(text: string, apiKey: string): string;
}

export default async function check(chapterDir: string): Promise<void> {
  const { redactKey } = (await import(
    pathToFileURL(join(chapterDir, "src/model/model-errors.ts")).href
  )) as ModelErrors;
  // Clearly fake; "+", "/" and "=" are what base64-style keys contain and URLs encode.
  const key = "sk-fake+key/not=real0123";
  const encoded = encodeURIComponent(key);
  assert.equal(encoded, "sk-fake%2Bkey%2Fnot%3Dreal0123");

  assert.equal(
    redactKey(`GET /v1/models?api_key=${encoded} failed`, key),
    "GET /v1/models?api_key=sk-…(redacted) failed",
    "the key's URL-encoded form (encodeURIComponent) must be redacted like the key itself",
  );
  assert.equal(
    redactKey(`Bearer ${key}, and again ${encoded}`, key),
    "Bearer sk-…(redacted), and again sk-…(redacted)",
    "both forms in one text: each copy of either is redacted",
  );
  assert.equal(
    redactKey("cannot reach http://localhost:11434/v1", "local"),
    "cannot reach http://localhost:11434/v1",
    "a short placeholder key is still left alone",
  );
}
