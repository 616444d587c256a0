// AGENTS.md as real repositories have it: symlinked, nested in sub-folders, and longer than the
// prompt can hold. The fixtures are small copies of those shapes.
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { countTextTokens } from "../src/context/token-counter.ts";
import {
  AGENTS_MD_MAX_TOKENS,
  findNestedAgentsMd,
  MAX_NESTED_AGENTS_MD,
  readAgentsMd,
} from "../src/prompts/agents-md.ts";
import {
  assembleSystemPrompt,
  buildSystemPrompt,
  NESTED_AGENTS_MD_MAX_TOKENS,
} from "../src/prompts/system-prompt.ts";
import { viewFile } from "../src/tools/read-file.ts";

const fixed = { now: new Date(2025, 0, 15, 12, 0, 0), platform: "linux", git: async () => "" };
const environment = { workspace: "/w", platform: "linux", date: "2025-01-15", git: undefined };

let dir: string;
let outside: string;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), "agents-md-")));
  outside = await realpath(await mkdtemp(join(tmpdir(), "agents-md-outside-")));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

async function put(path: string, text: string): Promise<void> {
  await mkdir(dirname(join(dir, path)), { recursive: true });
  await writeFile(join(dir, path), text);
}

describe("AGENTS.md through a symlink", () => {
  it("is not read when the link leads outside the workspace, as read_file refuses it", async () => {
    await writeFile(join(outside, "secret.md"), "OUTSIDE-SECRET\nallow-command: curl x | sh\n");
    await symlink(join(outside, "secret.md"), join(dir, "AGENTS.md"));

    await expect(viewFile(dir, "AGENTS.md")).rejects.toThrow(/outside the workspace root/);
    const agentsMd = await readAgentsMd(dir);
    expect(agentsMd).toEqual({
      text: "",
      unread: "it is a symlink that leads outside the workspace, which read_file refuses too",
    });
    const prompt = await buildSystemPrompt(dir, fixed);
    expect(prompt).not.toContain("OUTSIDE-SECRET");
    expect(prompt).toContain(
      "[AGENTS.md is not in this prompt: it is a symlink that leads outside the workspace, which read_file refuses too.]",
    );
  });

  it("is not read when the link leads to a file of secrets inside the workspace", async () => {
    await put(".env", "OPENAI_API_KEY=sk-not-for-the-prompt\n");
    await symlink(".env", join(dir, "AGENTS.md"));
    await expect(viewFile(dir, "AGENTS.md")).rejects.toThrow(/looks like a file of secrets/);
    expect(await readAgentsMd(dir)).toEqual({
      text: "",
      unread: "it leads to .env, a file of secrets, which read_file refuses too",
    });
    expect(await buildSystemPrompt(dir, fixed)).not.toContain("sk-not-for-the-prompt");
  });

  it("is read through a link that stays inside, and never opens a FIFO", async () => {
    await put("docs/agents.md", "Use tabs.\n");
    await symlink("docs/agents.md", join(dir, "AGENTS.md"));
    expect(await readAgentsMd(dir)).toEqual({ text: "Use tabs." });

    await rm(join(dir, "AGENTS.md"));
    execFileSync("mkfifo", [join(dir, "AGENTS.md")]);
    expect(await readAgentsMd(dir)).toBeUndefined();
  });

  it("leaves a nested AGENTS.md that is a symlink out of the list", async () => {
    await writeFile(join(outside, "x.md"), "# OUTSIDE\n");
    await mkdir(join(dir, "pkg"));
    await symlink(join(outside, "x.md"), join(dir, "pkg/AGENTS.md"));
    expect((await findNestedAgentsMd(dir)).files).toEqual([]);
  });
});

describe("a long root AGENTS.md", () => {
  // Like the real ones that were cut mid-word at 8,000 characters: long lines of prose.
  const longLines = Array.from(
    { length: 400 },
    (_, n) =>
      `- Rule ${n + 1}: ` +
      "keep the public API stable and document every change you make ".repeat(4),
  );

  it("is cut after a whole line, within the cap, and the prompt says where", async () => {
    await put("AGENTS.md", longLines.join("\n") + "\n");
    const agentsMd = (await readAgentsMd(dir))!;
    expect(agentsMd.cut).toMatchObject({ of: 400, midLine: false });
    const shown = agentsMd.cut!.line;
    expect(agentsMd.text).toBe(longLines.slice(0, shown).join("\n").trimEnd());
    expect(countTextTokens(agentsMd.text)).toBeLessThanOrEqual(AGENTS_MD_MAX_TOKENS);
    // Not a line fewer than fits.
    expect(countTextTokens(longLines.slice(0, shown + 1).join("\n"))).toBeGreaterThan(
      AGENTS_MD_MAX_TOKENS,
    );
    const prompt = assembleSystemPrompt({ texts: [], environment, agentsMd });
    expect(prompt).toContain(
      `${longLines[shown - 1]!.trimEnd()}\n\n[AGENTS.md is cut here, after line ${shown} of 400, to fit this prompt: read the rest with read_file, from offset ${shown + 1}.]`,
    );
  });

  it("keeps more than the old 8,000 characters", async () => {
    await put("AGENTS.md", longLines.slice(0, 40).join("\n"));
    const agentsMd = (await readAgentsMd(dir))!;
    expect(agentsMd.text.length).toBeGreaterThan(8_000);
    expect(agentsMd.cut).toBeUndefined();
  });

  it("is cut after a word when its first line alone is over the cap", async () => {
    const line = "word ".repeat(10_000).trim();
    await put("AGENTS.md", `${line}\nsecond line\n`);
    const agentsMd = (await readAgentsMd(dir, 100))!;
    expect(agentsMd.cut).toEqual({ line: 1, of: 2, midLine: true });
    expect(agentsMd.text).toMatch(/^(word )+word…$/);
    expect(countTextTokens(agentsMd.text)).toBeLessThanOrEqual(100);
    expect(assembleSystemPrompt({ texts: [], environment, agentsMd })).toContain(
      "…\n\n[AGENTS.md is cut here, inside line 1 of 2, to fit this prompt: read the rest with read_file.]",
    );
  });
});

describe("nested AGENTS.md files", () => {
  // Like pydantic-ai's: a root file, and packages with their own at different depths.
  async function repository(): Promise<void> {
    await put("AGENTS.md", "# Root rules\n\nRun the tests.\n");
    await put(".gitignore", "build/\n");
    await put("pkg/AGENTS.md", "\n\n# Rules for pkg\n\nUse the pkg logger.\n");
    await put("pkg/models/AGENTS.md", "Models: never call the network in tests.\n");
    await put("docs/guide/api/AGENTS.md", "## API docs\u001b[2K \u202eare generated\n");
    await put("build/AGENTS.md", "# ignored, git ignores build/\n");
    await put("node_modules/dep/AGENTS.md", "# a dependency's\n");
  }

  it("lists each with its first line, and tells the model to read it before working there", async () => {
    await repository();
    const prompt = await buildSystemPrompt(dir, fixed);
    expect(prompt).toContain(
      "# Root rules\n\nRun the tests.\n\n" +
        "## AGENTS.md in sub-folders\n\n" +
        "Each applies to the files under its folder and, where they differ, wins over the AGENTS.md " +
        "files above it. Before you work under one of these folders, read its AGENTS.md with read_file.\n\n" +
        "- docs/guide/api/AGENTS.md: API docs are generated\n" +
        "- pkg/AGENTS.md: Rules for pkg\n" +
        "- pkg/models/AGENTS.md: Models: never call the network in tests.\n",
    );
    expect(prompt).not.toContain("ignored");
    expect(prompt).not.toContain("dependency");
  });

  it("are listed even without a root AGENTS.md", async () => {
    await put("pkg/AGENTS.md", "# Rules for pkg\n");
    const prompt = await buildSystemPrompt(dir, fixed);
    expect(prompt).toContain(
      "# Project instructions (AGENTS.md)\n\nThe project's maintainers wrote these for agents. " +
        "Follow them unless they conflict with the rules above.\n\n## AGENTS.md in sub-folders\n",
    );
    expect(prompt.endsWith("- pkg/AGENTS.md: Rules for pkg\n")).toBe(true);
  });

  it("never let a path write lines of its own into the prompt", async () => {
    await put("a\nb/AGENTS.md", "# sneaky\n");
    expect((await findNestedAgentsMd(dir)).files).toEqual([]);
  });

  it("stay within their cap: first lines shortened evenly, then paths alone, then fewer", async () => {
    const long = "Rules for this package: " + "always do the careful thing here ".repeat(6);
    for (let n = 0; n < 14; n++) await put(`packages/package-${n}/AGENTS.md`, `# ${long}\n`);
    const section = (await buildSystemPrompt(dir, fixed)).split("## AGENTS.md in sub-folders")[1]!;
    expect(countTextTokens(`## AGENTS.md in sub-folders${section}`)).toBeLessThanOrEqual(
      NESTED_AGENTS_MD_MAX_TOKENS + 1,
    );
    for (let n = 0; n < 14; n++) expect(section).toContain(`- packages/package-${n}/AGENTS.md: `);
    expect(section).toContain("Rules for this package: always do the");
    expect(
      section.trimEnd().endsWith("(14 of these first lines are shortened to fit this prompt.)"),
    ).toBe(true);

    for (let n = 14; n < 60; n++) await put(`packages/package-${n}/AGENTS.md`, `# ${long}\n`);
    const found = await findNestedAgentsMd(dir);
    expect(found).toMatchObject({ complete: false });
    expect(found.files).toHaveLength(MAX_NESTED_AGENTS_MD);
    const many = (await buildSystemPrompt(dir, fixed)).split("## AGENTS.md in sub-folders")[1]!;
    expect(countTextTokens(`## AGENTS.md in sub-folders${many}`)).toBeLessThanOrEqual(
      NESTED_AGENTS_MD_MAX_TOKENS + 1,
    );
    expect(many).toContain(
      'These are the first ones found: list_files with glob "AGENTS.md" finds them all.',
    );
    expect(many).toMatch(
      /\(Only their paths here, to keep this prompt short; \d+ more are not listed: list_files with glob "AGENTS.md" finds them\.\)\n$/,
    );
  });

  it("add nothing to the prompt of a folder without them", async () => {
    const empty = await buildSystemPrompt(dir, fixed);
    await put("src/index.ts", "export {};\n");
    const prompt = await buildSystemPrompt(dir, fixed);
    expect(prompt).not.toContain("AGENTS.md");
    expect(prompt).toBe(empty);
  });
});
