import { mkdir, symlink, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { sha256 } from "../src/fs/file-hash.ts";
import type { SkillLoadedEvent } from "../src/ledger/ledger-events.ts";
import { RunLedger } from "../src/ledger/run-ledger.ts";
import { summaryLines } from "../src/loop/run-summary.ts";
import { discoverSkills, MAX_SKILL_BYTES, type Skill } from "../src/skills/discover-skills.ts";
import { loadSkillTool } from "../src/tools/load-skill-tool.ts";
import { runToolCall, type ToolCallResult } from "../src/tools/run-tool-call.ts";
import { skillText, useSkillFolders, writeSkill } from "./skills-fixtures.ts";

const folders = useSkillFolders();
let ledger: RunLedger | undefined;
afterEach(async () => {
  await ledger?.close();
  ledger = undefined;
});

const RUN_CHECKS = skillText(
  "name: run-checks\ndescription: How the checks run.",
  "Run `node check.mjs`; see reference.md.",
);

/** The workspace's run-checks skill with two files beside it, and a home skill. */
async function setUp(): Promise<Skill[]> {
  await writeSkill(folders.workspace, ".agents/skills", "run-checks", RUN_CHECKS);
  const dir = join(folders.workspace, ".agents/skills/run-checks");
  await writeFile(join(dir, "reference.md"), "Exit code 1 means a check failed.\n");
  await mkdir(join(dir, "scripts"));
  await writeFile(join(dir, "scripts/rerun.sh"), "node check.mjs\n");
  await writeSkill(folders.home, ".claude/skills", "commit-style");
  const found = await discoverSkills(folders.workspace, { home: folders.home });
  ledger = await RunLedger.open(folders.workspace, { task: "t", model: "m" });
  return found.skills;
}

function load(skills: Skill[], name: string): Promise<ToolCallResult> {
  return runToolCall(
    [loadSkillTool(skills)],
    { id: "call_1", function: { name: "load_skill", arguments: JSON.stringify({ name }) } },
    { cwd: folders.workspace, signal: new AbortController().signal, ledger },
  );
}

function loaded(): Omit<SkillLoadedEvent, "time">[] {
  return ledger!
    .events()
    .filter((event): event is SkillLoadedEvent => event.type === "skill_loaded")
    .map(({ time: _time, ...event }) => event);
}

describe("load_skill", () => {
  it("returns the instructions without front matter, where they are, and the files beside them", async () => {
    const result = await load(await setUp(), "run-checks");
    expect(result.ok).toBe(true);
    expect(result.content).toBe(
      "Skill run-checks (.agents/skills/run-checks/SKILL.md). Its own files are in .agents/skills/run-checks/.\n\n" +
        "Run `node check.mjs`; see reference.md.\n\n" +
        'Files beside it (load one with "run-checks/<file>"): reference.md, scripts/rerun.sh',
    );
  });

  it("records the load in the ledger with the hash of the SKILL.md read", async () => {
    await load(await setUp(), "run-checks");
    expect(loaded()).toEqual([
      {
        type: "skill_loaded",
        name: "run-checks",
        path: ".agents/skills/run-checks/SKILL.md",
        sha256: sha256(RUN_CHECKS),
      },
    ]);
    // And a replayed ledger reads it back.
    await ledger!.close();
    const replayed = await RunLedger.load(folders.workspace, ledger!.runId);
    expect(replayed.events().some((event) => event.type === "skill_loaded")).toBe(true);
  });

  it("loads a skill from the home folder, which read_file cannot reach", async () => {
    const result = await load(await setUp(), "commit-style");
    expect(result.content).toContain("Skill commit-style (~/.claude/skills/commit-style/SKILL.md)");
    expect(loaded()[0]?.path).toBe("~/.claude/skills/commit-style/SKILL.md");
  });

  it("loads a file beside the skill as name/file, and records its hash", async () => {
    const result = await load(await setUp(), "run-checks/scripts/rerun.sh");
    expect(result).toMatchObject({
      ok: true,
      content:
        ".agents/skills/run-checks/scripts/rerun.sh (a file of skill run-checks):\n\nnode check.mjs\n",
    });
    expect(loaded()).toEqual([
      {
        type: "skill_loaded",
        name: "run-checks",
        path: ".agents/skills/run-checks/scripts/rerun.sh",
        sha256: sha256("node check.mjs\n"),
      },
    ]);
  });

  it("answers an unknown name with every skill's name", async () => {
    const result = await load(await setUp(), "deploy");
    expect(result).toMatchObject({ ok: false, code: "unknown_skill" });
    expect(result.content).toBe(
      'Error [unknown_skill]: There is no skill "deploy". The skills are: run-checks, commit-style.\n' +
        "Hint: Call load_skill again with one of those names.",
    );
    expect(loaded()).toEqual([]);
  });

  it("refuses a file outside the skill's folder, by path or through a symlink", async () => {
    const skills = await setUp();
    await writeFile(join(folders.workspace, "secret.txt"), "not for skills\n");
    await symlink(
      join(folders.workspace, "secret.txt"),
      join(folders.workspace, ".agents/skills/run-checks/link.txt"),
    );
    for (const name of ["run-checks/../../../secret.txt", "run-checks/link.txt", "run-checks/"]) {
      const file = name.slice("run-checks/".length);
      expect((await load(skills, name)).content).toBe(
        `Error [not_in_skill]: run-checks has no file "${file}" in its folder.\n` +
          'Hint: Call load_skill with "run-checks" to see its files, and name one of those.',
      );
    }
    expect((await load(skills, "run-checks/missing.md")).code).toBe("not_in_skill");
    expect(loaded()).toEqual([]);
  });

  it("refuses a file of secrets and a folder", async () => {
    const skills = await setUp();
    await writeFile(join(folders.workspace, ".agents/skills/run-checks/.env"), "KEY=1\n");
    expect(await load(skills, "run-checks/.env")).toMatchObject({
      ok: false,
      code: "secret_file",
      content:
        "Error [secret_file]: .agents/skills/run-checks/.env looks like a file of secrets; load_skill does not show it, because what it shows is sent to the model's provider.\n" +
        "Hint: Continue without it.",
    });
    expect((await load(skills, "run-checks/scripts")).content).toBe(
      "Error [not_loadable]: .agents/skills/run-checks/scripts is a directory, not a regular file.\n" +
        "Hint: Continue without it, or ask the user what it says.",
    );
    const big = join(folders.workspace, ".agents/skills/run-checks/big.md");
    await writeFile(big, "x".repeat(MAX_SKILL_BYTES + 1));
    expect((await load(skills, "run-checks/big.md")).content).toBe(
      `Error [not_loadable]: .agents/skills/run-checks/big.md is too big: ${MAX_SKILL_BYTES + 1} bytes, the limit is ${MAX_SKILL_BYTES}.\n` +
        "Hint: Continue without it, or ask the user what it says.",
    );
  });
});

describe("load_skill, when something is in the way", () => {
  it("names a file it cannot read as the person sees it, never by its absolute path", async () => {
    const skills = await setUp();
    // A socket cannot be opened as a file (ENXIO), even by root, who may read any file: the same
    // path as EACCES on a file without read permission.
    const socket = join(folders.home, ".claude/skills/commit-style/agent.sock");
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(socket, resolve));
    try {
      const result = await load(skills, "commit-style/agent.sock");
      expect(result).toMatchObject({
        ok: false,
        code: "io_error",
        content:
          "Error [io_error]: ~/.claude/skills/commit-style/agent.sock cannot be read (ENXIO).\n" +
          "Hint: Continue without it, or ask the user to make it readable.",
      });
      expect(result.content).not.toContain(folders.home);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    expect(loaded()).toEqual([]);
  });

  it("lists the files of at most 20 folders, however many a skill nests", async () => {
    const skills = await setUp();
    const dir = join(folders.workspace, ".agents/skills/run-checks");
    for (let i = 0; i < 30; i += 1) await mkdir(join(dir, `f${String(i).padStart(2, "0")}`));
    const result = await load(skills, "run-checks");
    // The skill's folder and f00 to f18 are walked: scripts/, after them, is not.
    expect(result.content.split("\n").at(-1)).toBe(
      'Files beside it (load one with "run-checks/<file>"): reference.md, …',
    );
  });

  it("fails as a bug of the harness without the run's ledger, and loads nothing off the record", async () => {
    const skills = await setUp();
    const result = await runToolCall(
      [loadSkillTool(skills)],
      {
        id: "call_1",
        function: { name: "load_skill", arguments: JSON.stringify({ name: "run-checks" }) },
      },
      { cwd: folders.workspace, signal: new AbortController().signal },
    );
    expect(result.code).toBeUndefined();
    expect(result).toMatchObject({
      ok: false,
      content: "Error: load_skill failed: no run ledger in the tool context (a bug in the harness)",
    });
  });
});

describe("the run summary", () => {
  it("names each skill loaded once", async () => {
    const skills = await setUp();
    await load(skills, "run-checks");
    await load(skills, "run-checks/reference.md");
    await load(skills, "commit-style");
    const lines = summaryLines({ reason: "done", message: null }, ledger!, []);
    expect(lines).toContain("skills loaded: run-checks, commit-style");
  });

  it("says nothing of skills when none was loaded", async () => {
    await setUp();
    const lines = summaryLines({ reason: "done", message: null }, ledger!, []);
    expect(lines.some((line) => line.startsWith("skills"))).toBe(false);
  });
});
