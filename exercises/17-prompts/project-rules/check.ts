// Exercise "A per-project rule file": a workspace's .agent/rules.md goes into the system prompt
// after AGENTS.md, under a heading of its own, capped like AGENTS.md; without the file the prompt
// is the same as before.
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

interface PromptModule {
  buildSystemPrompt(
    workspace: string,
    options?: {
      now?: Date;
      platform?: string;
      git?: (args: string[], cwd: string) => Promise<string>;
    },
  ): Promise<string>;
}

// A fixed clock and platform, and no git: the prompt depends only on the workspace's files.
const fixed = {
  now: new Date(2025, 0, 15, 12, 0, 0),
  platform: "linux",
  git: async (): Promise<string> => {
    throw new Error("not a git repository");
  },
};

export default async function check(chapterDir: string): Promise<void> {
  const url = pathToFileURL(join(chapterDir, "src/prompts/system-prompt.ts")).href;
  const { buildSystemPrompt } = (await import(url)) as PromptModule;
  const workspace = await mkdtemp(join(tmpdir(), "project-rules-"));
  try {
    await writeFile(join(workspace, "AGENTS.md"), "Run `node check.mjs` after every change.\n");
    const before = await buildSystemPrompt(workspace, fixed);

    await mkdir(join(workspace, ".agent"));
    await writeFile(join(workspace, ".agent", "rules.md"), "Never edit legacy/.\n");
    const withRules = await buildSystemPrompt(workspace, fixed);
    assert.ok(
      withRules.includes("Never edit legacy/."),
      "the text of .agent/rules.md should be in the system prompt (read it in buildSystemPrompt)",
    );
    assert.ok(
      withRules.startsWith(before.trimEnd()),
      "the project's rules should come after everything else, AGENTS.md included: the prompt " +
        "without them should be the start of the prompt with them",
    );
    const added = withRules.slice(before.trimEnd().length);
    assert.match(
      added,
      /^\n\n# [^\n]*\n/,
      "the rules should be a section of their own, starting with a '# ' heading, separated by a blank line",
    );
    assert.match(added, /rules\.md/, "the section's heading should name .agent/rules.md");

    // About 20,000 tokens: far more than AGENTS.md's cap of 4,000.
    const many = Array.from({ length: 4_000 }, (_, n) => `Rule ${n}: keep it short.`).join("\n");
    await writeFile(join(workspace, ".agent", "rules.md"), `${many}\nTAIL-MARKER\n`);
    const long = await buildSystemPrompt(workspace, fixed);
    assert.ok(
      !long.includes("TAIL-MARKER"),
      "a long .agent/rules.md should be capped like AGENTS.md (4,000 tokens)",
    );

    await rm(join(workspace, ".agent"), { recursive: true });
    assert.equal(
      await buildSystemPrompt(workspace, fixed),
      before,
      "without .agent/rules.md the prompt should be exactly what it was",
    );
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}
