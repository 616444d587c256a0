import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { OutputCap } from "../src/commands/output-cap.ts";
import { runCommand } from "../src/commands/run-command.ts";

const MARKER = /\n\[\.\.\. \d+ characters elided \.\.\.\]\n/;

describe("OutputCap", () => {
  it("keeps everything that fits, with no marker", () => {
    const cap = new OutputCap(10);
    cap.push("01234");
    cap.push("56789");
    expect(cap.text()).toBe("0123456789");
    expect(cap.elided).toBe(0);
  });

  it("keeps the first and last halves and says how much it left out (the model reads this)", () => {
    const cap = new OutputCap(10);
    cap.push("0123456789abcdefghij");
    expect(cap.text()).toBe("01234\n[... 10 characters elided ...]\nfghij");
    expect(cap.elided).toBe(10);
  });

  it("gives the same text however the output was cut into chunks", () => {
    const cap = new OutputCap(10);
    for (const char of "0123456789abcdefghij") cap.push(char);
    expect(cap.text()).toBe("01234\n[... 10 characters elided ...]\nfghij");
  });

  it("never holds more than its budget, however much is pushed", () => {
    const cap = new OutputCap(1_000);
    const chunk = "x".repeat(999);
    for (let i = 0; i < 10_000; i++) {
      cap.push(chunk);
      expect(cap.text().replace(MARKER, "").length).toBeLessThanOrEqual(1_000);
    }
    expect(cap.elided).toBe(999 * 10_000 - 1_000);
  });

  it("caps a command that prints 5 MB, keeping its head and tail", async () => {
    const cwd = await mkdtemp(join(tmpdir(), "output-cap-"));
    try {
      const outcome = await runCommand({
        command: "head -c 5000000 /dev/zero | tr '\\0' a; echo; echo the end",
        cwd,
        timeoutMs: 10_000,
        signal: new AbortController().signal,
        env: { PATH: process.env.PATH },
        maxOutputChars: 1_000,
      });
      expect(outcome.exitCode).toBe(0);
      const tail = `${"a".repeat(500 - "\nthe end\n".length)}\nthe end\n`;
      expect(outcome.output).toBe(
        `${"a".repeat(500)}\n[... 4999009 characters elided ...]\n${tail}`,
      );
    } finally {
      await rm(cwd, { recursive: true, force: true });
    }
  });
});
