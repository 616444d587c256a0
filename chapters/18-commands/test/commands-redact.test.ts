// The API key is taken out of what a command printed and of every tool result (redact-secrets.ts).
import { describe, expect, it } from "vitest";
import { runCommand } from "../src/commands/run-command.ts";
import { MIN_SECRET_LENGTH, REDACTED, redactSecrets } from "../src/commands/redact-secrets.ts";

const KEY = "sk-test-0123456789abcdefghij";

describe("redactSecrets", () => {
  it("replaces every exact copy of the key with a label the model can read", () => {
    expect(REDACTED).toBe("[redacted: OPENAI_API_KEY]");
    expect(redactSecrets(`OPENAI_API_KEY=${KEY}\nagain: "${KEY}"`, [KEY])).toBe(
      'OPENAI_API_KEY=[redacted: OPENAI_API_KEY]\nagain: "[redacted: OPENAI_API_KEY]"',
    );
  });

  it("leaves a key shorter than 8 characters alone: a placeholder such as local protects nothing", () => {
    expect(MIN_SECRET_LENGTH).toBe(8);
    expect(redactSecrets("http://localhost:11434", ["local"])).toBe("http://localhost:11434");
    expect(redactSecrets("key=abcdefgh", ["abcdefgh"])).toBe(`key=${REDACTED}`);
  });

  it("replaces the longer of two secrets whole, when one contains the other", () => {
    expect(redactSecrets(`${KEY}-extra`, [KEY, `${KEY}-extra`])).toBe(REDACTED);
  });

  it("finds only exact copies: an encoded key is not found (the page says why)", () => {
    const encoded = Buffer.from(KEY).toString("base64");
    expect(redactSecrets(encoded, [KEY])).toBe(encoded);
  });
});

describe("runCommand with secrets", () => {
  it("takes the key out of the output, stdout and stderr alike", async () => {
    const outcome = await runCommand({
      command: `echo "OPENAI_API_KEY=${KEY}"; echo "${KEY}" >&2`,
      cwd: process.cwd(),
      timeoutMs: 10_000,
      signal: new AbortController().signal,
      env: { PATH: process.env.PATH },
      secrets: [KEY],
    });
    expect(outcome.output).toBe(`OPENAI_API_KEY=${REDACTED}\n${REDACTED}\n`);
  });
});
