import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { countMessageTokens, countToolTokens } from "../src/context/token-counter.ts";
import { readAgentsMd } from "../src/prompts/agents-md.ts";
import { formatEnvironment } from "../src/prompts/environment.ts";
import { readGitState, type GitRunner } from "../src/prompts/git-state.ts";
import { printPrompt } from "../src/prompts/print-prompt.ts";
import {
  assembleSystemPrompt,
  buildSystemPrompt,
  loadPromptTexts,
} from "../src/prompts/system-prompt.ts";
import { applyPatchTool } from "../src/tools/apply-patch-tool.ts";
import { toOpenAITool } from "../src/tools/define-tool.ts";
import { noteTool } from "../src/tools/note-tool.ts";

// A fixed clock, platform and git: the prompt must be a pure function of them.
const fixed = {
  now: new Date(2025, 0, 15, 12, 0, 0),
  platform: "linux",
  git: (async (args) => {
    if (args[0] === "symbolic-ref") return "main\n";
    if (args[0] === "status") return " M src/cart.ts\n?? notes.txt\n";
    return "true\n";
  }) satisfies GitRunner,
};

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "prompt-test-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("the system prompt", () => {
  it("is pinned by a snapshot (fixed workspace, date, platform and git)", async () => {
    const prompt = assembleSystemPrompt({
      texts: await loadPromptTexts(),
      environment: {
        workspace: "/home/reader/demo-shop",
        platform: "linux",
        date: "2025-01-15",
        git: { branch: "main", status: [" M src/cart.ts"], omitted: 0 },
      },
      agentsMd: { text: "Run `npm test` before you finish." },
    });
    await expect(prompt).toMatchFileSnapshot("./__snapshots__/system-prompt.txt");
  });

  it("states every rule the harness relies on", async () => {
    const prompt = await buildSystemPrompt(dir, fixed);
    for (const rule of [
      "A patch is the only way to write",
      "The first line of every patch is `*** Begin Patch`",
      "no code fences",
      "(every path you use is relative to it)",
      "Read the whole file with `read_file` before you change or delete it",
      "Change only what the task needs",
      "Never edit `node_modules/`, `dist/`, `build/`",
      "After a `file_changed` error",
      "Do not resend the same patch",
      "WRONG",
      "RIGHT",
    ]) {
      expect(prompt).toContain(rule);
    }
  });

  it("is deterministic: the same inputs give the same bytes", async () => {
    expect(await buildSystemPrompt(dir, fixed)).toBe(await buildSystemPrompt(dir, fixed));
  });

  it("includes the environment: workspace, platform, date, branch and status", async () => {
    const prompt = await buildSystemPrompt(dir, fixed);
    expect(prompt).toContain(`- Workspace root: ${dir} (every path you use is relative to it)`);
    expect(prompt).toContain("- Platform: linux");
    expect(prompt).toContain("- Date: 2025-01-15");
    expect(prompt).toContain("- Git branch: main");
    expect(prompt).toContain(" M src/cart.ts\n?? notes.txt\n```");
  });

  it("includes AGENTS.md when the workspace has one, and says when it is cut", async () => {
    await writeFile(join(dir, "AGENTS.md"), "Use tabs.\r\nNever touch legacy/.\r\n");
    const prompt = await buildSystemPrompt(dir, fixed);
    expect(prompt).toContain(
      "# Project instructions (AGENTS.md)\n\nThe project's maintainers wrote these for agents. " +
        "Follow them unless they conflict with the rules above.\n\nUse tabs.\nNever touch legacy/.\n",
    );

    const long = await readAgentsMd(dir, 6);
    expect(long).toEqual({ text: "Use tabs.", cut: { line: 1, of: 2, midLine: false } });
    const cut = assembleSystemPrompt({
      texts: [],
      environment: { workspace: dir, platform: "linux", date: "2025-01-15", git: undefined },
      agentsMd: long,
    });
    expect(cut).toContain(
      "Use tabs.\n\n[AGENTS.md is cut here, after line 1 of 2, to fit this prompt: read the rest with read_file, from offset 2.]",
    );
  });

  it("has no AGENTS.md section when there is no AGENTS.md", async () => {
    expect(await buildSystemPrompt(dir, fixed)).not.toContain("AGENTS.md)");
  });
});

describe("git state", () => {
  it("tolerates a folder that is not a git repository", async () => {
    expect(await readGitState(dir)).toBeUndefined();
    const prompt = await buildSystemPrompt(dir, { now: fixed.now, platform: "linux" });
    expect(prompt).toContain("- Git: not a git repository");
  });

  it("tolerates a missing git binary", async () => {
    const missing: GitRunner = () => Promise.reject(new Error("spawn git ENOENT"));
    expect(await readGitState(dir, missing)).toBeUndefined();
  });

  it("reads the branch and status of a real repository, even one without commits", async () => {
    execFileSync("git", ["init", "--quiet", "--initial-branch=trunk"], { cwd: dir });
    await writeFile(join(dir, "new.txt"), "hello\n");
    // The harness's own folder is not the project's work, so the model is not shown it.
    await mkdir(join(dir, ".agent", "runs"), { recursive: true });
    await writeFile(join(dir, ".agent", "runs", "r.jsonl"), "{}\n");
    expect(await readGitState(dir)).toEqual({
      branch: "trunk",
      status: ["?? new.txt"],
      omitted: 0,
    });
  });

  it("runs nothing a hostile .git/config names, and gives git no API key", async () => {
    // What a command could leave behind: fsmonitor and a hook run on status, a filter when a
    // file must be hashed again (its modification time changed). Each writes its environment.
    const marker = join(dir, "ran.txt");
    const script = join(dir, "hostile.sh");
    await writeFile(
      script,
      `#!/bin/sh\necho "$0 $*" >> '${marker}'\nenv >> '${marker}'\n[ "$1" = clean ] && cat\n`,
      {
        mode: 0o755,
      },
    );
    execFileSync("git", ["init", "--quiet"], { cwd: dir });
    await mkdir(join(dir, "hooks"));
    for (const hook of ["post-index-change", "pre-commit"]) {
      await writeFile(join(dir, "hooks", hook), `#!/bin/sh\nexec '${script}'\n`, { mode: 0o755 });
    }
    await writeFile(join(dir, "tracked.txt"), "hello\n");
    execFileSync("git", ["add", "tracked.txt"], { cwd: dir });
    for (const [name, value] of [
      ["core.fsmonitor", script],
      ["core.hooksPath", join(dir, "hooks")],
      ["filter.evil.clean", `${script} clean`],
      ["filter.evil.process", script],
      ["filter.evil.required", "true"],
    ]) {
      execFileSync("git", ["config", name!, value!], { cwd: dir });
    }
    await writeFile(join(dir, ".git", "info", "attributes"), "* filter=evil\n");
    await utimes(join(dir, "tracked.txt"), new Date(2001, 0, 1), new Date(2001, 0, 1));
    const saved = process.env.OPENAI_API_KEY;
    process.env.OPENAI_API_KEY = "sk-test-must-not-reach-git-0000";
    let state;
    try {
      state = await readGitState(dir);
    } finally {
      if (saved === undefined) delete process.env.OPENAI_API_KEY;
      else process.env.OPENAI_API_KEY = saved;
    }
    expect(existsSync(marker) ? await readFile(marker, "utf8") : "nothing ran").toBe("nothing ran");
    expect(state?.status).toEqual(["A  tracked.txt", "?? hooks/", "?? hostile.sh"]);
  });

  it("caps a long status and says how much it left out", () => {
    const status = Array.from({ length: 20 }, (_, i) => `?? file-${i}.txt`);
    const text = formatEnvironment({
      workspace: "/w",
      platform: "linux",
      date: "2025-01-15",
      git: { branch: "main", status, omitted: 5 },
    });
    expect(text).toContain("?? file-19.txt\n... and 5 more\n```");
  });
});

describe("--print-prompt's price", () => {
  it("counts the tool definitions too: they go with every model call", async () => {
    const tools = [applyPatchTool, noteTool];
    let out = "";
    await printPrompt(dir, { ...fixed, tools }, { write: (text: string) => (out += text) });

    const prompt = await buildSystemPrompt(dir, fixed);
    const promptTokens = countMessageTokens({ role: "system", content: prompt });
    const [patch, note] = tools.map((tool) => countToolTokens([toOpenAITool(tool)]));
    const total = promptTokens + patch! + note!;
    expect(out.startsWith(prompt)).toBe(true);
    expect(out).toContain(`\n-- system prompt: ${promptTokens} tokens (o200k_base) --\n`);
    expect(out).toContain(
      `\n-- tools: ${patch! + note!} tokens (apply_patch ${patch}, note ${note}) --\n`,
    );
    expect(out.endsWith(`\n-- ${total} tokens in all, sent with every model call --\n`)).toBe(true);
  });
});
