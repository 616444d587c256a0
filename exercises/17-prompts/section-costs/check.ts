// Exercise "Measure a rule, cheaply": --print-prompt ends with one line per section of the prompt,
// "- rules.md: 402 tokens", in prompt order, after the total; the prompt it prints is unchanged.
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

interface EnvironmentOptions {
  now?: Date;
  platform?: string;
  git?: (args: string[], cwd: string) => Promise<string>;
}

interface PrintModule {
  printPrompt(
    workspace: string,
    options?: EnvironmentOptions,
    out?: { write(text: string): unknown },
  ): Promise<void>;
}

interface PromptModule {
  buildSystemPrompt(workspace: string, options?: EnvironmentOptions): Promise<string>;
}

const fixed: EnvironmentOptions = {
  now: new Date(2025, 0, 15, 12, 0, 0),
  platform: "linux",
  git: async () => {
    throw new Error("not a git repository");
  },
};

const SECTIONS = ["role.md", "rules.md", "patch-format.md", "environment", "AGENTS.md"];

export default async function check(chapterDir: string): Promise<void> {
  const prompts = join(chapterDir, "src/prompts");
  const { printPrompt } = (await import(
    pathToFileURL(join(prompts, "print-prompt.ts")).href
  )) as PrintModule;
  const { buildSystemPrompt } = (await import(
    pathToFileURL(join(prompts, "system-prompt.ts")).href
  )) as PromptModule;
  const workspace = await mkdtemp(join(tmpdir(), "section-costs-"));
  try {
    await writeFile(join(workspace, "AGENTS.md"), "Use tabs.\n");
    let out = "";
    await printPrompt(workspace, fixed, { write: (text: string) => (out += text) });

    const prompt = await buildSystemPrompt(workspace, fixed);
    assert.ok(out.startsWith(prompt), "--print-prompt should still print the whole prompt first");
    const total = /\n-- system prompt: (\d+) tokens[^\n]*--\n/.exec(out.slice(prompt.length));
    assert.ok(total, "the total line (-- system prompt: N tokens ... --) should still follow it");

    const after = out.slice(prompt.length + total.index + total[0].length);
    const lines = [...after.matchAll(/^- (\S+): (\d+) tokens$/gm)];
    assert.deepEqual(
      lines.map((line) => line[1]),
      SECTIONS,
      `after the total, one line per section ("- rules.md: 402 tokens"), in prompt order: ${SECTIONS.join(", ")}; got:\n${after}`,
    );
    const counts = new Map(lines.map((line) => [line[1]!, Number(line[2])]));
    assert.ok(
      [...counts.values()].every((n) => n > 0),
      "every section costs at least one token",
    );
    assert.ok(
      counts.get("rules.md")! > counts.get("role.md")!,
      "rules.md is longer than role.md, so it should cost more tokens: count each section's own text",
    );
    const sum = [...counts.values()].reduce((a, b) => a + b, 0);
    const whole = Number(total[1]);
    assert.ok(
      Math.abs(whole - sum) <= 20,
      `the sections (${sum} tokens together) should add up to about the total (${whole}): count each section once, with its heading`,
    );
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}
