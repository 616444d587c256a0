// Exercise "Explain an oversized question": a 400 whose code is context_length_exceeded is
// explained in one line that names the model, instead of the server's message passed on.
import assert from "node:assert/strict";
import { realpathSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

interface ModelErrors {
  describeModelError(
    error: unknown,
    context: { baseURL: string; model: string; timeoutMs: number },
  ): string;
}
type ErrorClass = new (status: number, error: object, message: string, headers: Headers) => Error;

export default async function check(chapterDir: string): Promise<void> {
  const { describeModelError } = (await import(
    pathToFileURL(join(chapterDir, "src/model/model-errors.ts")).href
  )) as ModelErrors;
  // The SDK the chapter itself imports (its ES module build, not the CommonJS one `require` would
  // find), so that `instanceof` in describeModelError sees the same classes.
  const sdk = join(chapterDir, "node_modules", "openai", "index.mjs");
  const { BadRequestError } = (await import(pathToFileURL(realpathSync(sdk)).href)) as {
    BadRequestError: ErrorClass;
  };
  const context = { baseURL: "https://api.example.com/v1", model: "small-model", timeoutMs: 1000 };

  const tooLong = new BadRequestError(
    400,
    {
      message: "This model's maximum context length is 128000 tokens.",
      type: "invalid_request_error",
      code: "context_length_exceeded",
    },
    "400 This model's maximum context length is 128000 tokens.",
    new Headers(),
  );
  assert.equal(
    describeModelError(tooLong, context),
    'the question is too long for model "small-model": ask a shorter one',
  );

  const other = new BadRequestError(
    400,
    { message: "temperature must be at most 2", type: "invalid_request_error", code: null },
    "400 temperature must be at most 2",
    new Headers(),
  );
  assert.match(
    describeModelError(other, context),
    /returned an error: 400 temperature must be at most 2/,
    "any other 400 should still pass the server's message on",
  );
}
