// The API key is taken out of what a command printed and of every tool result (redact-secrets.ts).
import { describe, expect, it } from "vitest";
import { runCommand } from "../src/commands/run-command.ts";
import {
  MIN_SECRET_LENGTH,
  REDACTED,
  redactSecrets,
  StreamRedactor,
} from "../src/commands/redact-secrets.ts";

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

describe("StreamRedactor", () => {
  it("catches a key split across chunks at every point, and lets everything else through", () => {
    const text = `before ${KEY} after`;
    for (let cut = 0; cut <= text.length; cut++) {
      const redactor = new StreamRedactor([KEY]);
      const out =
        redactor.push(text.slice(0, cut)) + redactor.push(text.slice(cut)) + redactor.end();
      expect(out).toBe(`before ${REDACTED} after`);
    }
    const byChar = new StreamRedactor([KEY]);
    expect([...text].map((c) => byChar.push(c)).join("") + byChar.end()).toBe(
      `before ${REDACTED} after`,
    );
  });

  it("holds nothing back without a secret", () => {
    expect(new StreamRedactor([]).push("abc")).toBe("abc");
    expect(new StreamRedactor(["local"]).push("localhost")).toBe("localhost");
  });
});

describe("runCommand with secrets", () => {
  function run(command: string) {
    return runCommand({
      command,
      cwd: process.cwd(),
      timeoutMs: 10_000,
      signal: new AbortController().signal,
      env: { PATH: process.env.PATH },
      secrets: [KEY],
    });
  }

  it("leaves no half of a key at the output cap's cut", async () => {
    // 16,000 characters: the head is the first 8,000, so the first key starts 16 before the cut
    // and the second ends 16 after where the tail begins.
    const printed = `printf 'a%.0s' {1..7984}; printf '${KEY}'; printf 'b%.0s' {1..20000}; printf '${KEY}'; printf 'c%.0s' {1..7983}`;
    const { output } = await run(printed);
    for (let i = 0; i + 8 <= KEY.length; i++) expect(output).not.toContain(KEY.slice(i, i + 8));
    // The labels are cut instead, which gives nothing away.
    expect(output).toMatch(
      /^a{7984}\[redacted: OPENA\n\[\.\.\. \d+ characters elided \.\.\.\]\n: OPENAI_API_KEY\]c{7983}$/,
    );
  });

  it("catches a key the command prints in two writes, and across stdout and stderr", async () => {
    const half = KEY.length / 2;
    const { output } = await run(
      `printf '${KEY.slice(0, half)}'; sleep 0.2; printf '${KEY.slice(half)}\\n'; printf '${KEY.slice(0, half)}' >&2; sleep 0.2; printf '${KEY.slice(half)}\\n'`,
    );
    expect(output).toBe(`${REDACTED}\n${REDACTED}\n`);
  });

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
