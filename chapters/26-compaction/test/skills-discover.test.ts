import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sha256 } from "../src/fs/file-hash.ts";
import {
  discoverSkills,
  MAX_SKILL_BYTES,
  MAX_SKILL_FOLDERS,
} from "../src/skills/discover-skills.ts";
import { skillText, useSkillFolders, writeSkill } from "./skills-fixtures.ts";

const folders = useSkillFolders();
const discover = () => discoverSkills(folders.workspace, { home: folders.home });

describe("finding skills", () => {
  it("reads .agents/skills and .claude/skills in the workspace and in the home folder", async () => {
    await writeSkill(folders.workspace, ".agents/skills", "run-checks");
    await writeSkill(folders.workspace, ".claude/skills", "review");
    await writeSkill(folders.home, ".agents/skills", "commit-style");
    await writeSkill(folders.home, ".claude/skills", "pdf-forms");

    const found = await discover();
    expect(found.problems).toEqual([]);
    expect(found.skills.map((skill) => [skill.name, skill.shown])).toEqual([
      ["run-checks", ".agents/skills/run-checks/SKILL.md"],
      ["review", ".claude/skills/review/SKILL.md"],
      ["commit-style", "~/.agents/skills/commit-style/SKILL.md"],
      ["pdf-forms", "~/.claude/skills/pdf-forms/SKILL.md"],
    ]);
  });

  it("keeps the name, the description, the instructions without front matter, and the hash", async () => {
    const text = skillText(
      "name: run-checks\ndescription: >\n  How the checks run.\n  Use it before you run them.\nlicense: MIT",
      "# Checks\n\nRun `node check.mjs`.",
    );
    await writeSkill(folders.workspace, ".agents/skills", "run-checks", text);

    const [skill] = (await discover()).skills;
    expect(skill).toEqual({
      name: "run-checks",
      description: "How the checks run. Use it before you run them.",
      body: "# Checks\n\nRun `node check.mjs`.",
      dir: join(folders.workspace, ".agents/skills/run-checks"),
      shown: ".agents/skills/run-checks/SKILL.md",
      sha256: sha256(text),
    });
  });

  it("reads only the workspace when no home folder is given", async () => {
    await writeSkill(folders.home, ".agents/skills", "commit-style");
    expect(await discoverSkills(folders.workspace)).toEqual({ skills: [], problems: [] });
  });

  it("lets the workspace's skill win over the home folder's of the same name, and says so", async () => {
    await writeSkill(folders.workspace, ".claude/skills", "deploy");
    await writeSkill(folders.home, ".agents/skills", "deploy");

    const found = await discover();
    expect(found.skills.map((skill) => skill.shown)).toEqual([".claude/skills/deploy/SKILL.md"]);
    expect(found.problems).toEqual([
      'skipped skill ~/.agents/skills/deploy/SKILL.md: the name "deploy" is taken by .claude/skills/deploy/SKILL.md, which is used: rename one of them',
    ]);
  });

  it("lets .agents/ win over .claude/ in the same folder", async () => {
    await writeSkill(folders.workspace, ".agents/skills", "deploy");
    await writeSkill(folders.workspace, ".claude/skills", "deploy");

    const found = await discover();
    expect(found.skills.map((skill) => skill.shown)).toEqual([".agents/skills/deploy/SKILL.md"]);
    expect(found.problems).toHaveLength(1);
  });

  it("reads a workspace that is the home folder once, with no duplicates", async () => {
    await writeSkill(folders.home, ".agents/skills", "deploy");
    const found = await discoverSkills(folders.home, { home: folders.home });
    expect(found).toMatchObject({ skills: [{ shown: ".agents/skills/deploy/SKILL.md" }] });
    expect(found.problems).toEqual([]);
  });

  it("passes over files and folders without a SKILL.md, and a missing home folder", async () => {
    await mkdir(join(folders.workspace, ".agents/skills/shared"), { recursive: true });
    await writeFile(join(folders.workspace, ".agents/skills/README.md"), "# Our skills\n");
    await writeSkill(folders.workspace, ".agents/skills", "deploy");

    const found = await discoverSkills(folders.workspace, { home: join(folders.home, "gone") });
    expect(found.skills.map((skill) => skill.name)).toEqual(["deploy"]);
    expect(found.problems).toEqual([]);
  });

  it("follows a symlinked skill folder inside the workspace, and survives a broken link and a loop", async () => {
    await writeSkill(folders.workspace, "tools/kept", "deploy");
    const skills = join(folders.workspace, ".agents/skills");
    await mkdir(skills, { recursive: true });
    await symlink(join(folders.workspace, "tools/kept/deploy"), join(skills, "deploy"));
    await symlink(join(folders.home, "nowhere"), join(skills, "broken"));
    await symlink(join(skills, "loop"), join(skills, "loop"));

    const found = await discover();
    expect(found.skills.map((skill) => skill.shown)).toEqual([".agents/skills/deploy/SKILL.md"]);
    expect(found.skills[0]!.dir).toBe(join(folders.workspace, "tools/kept/deploy"));
    expect(found.problems).toEqual([
      "skipped skill .agents/skills/loop/SKILL.md: a symlink on its path goes round in a loop (ELOOP): fix or remove it",
    ]);
  });

  it("reads no SKILL.md through a symlink out of the workspace, as read_file reads none", async () => {
    await writeSkill(folders.home, "kept", "deploy");
    await writeSkill(folders.home, "kept", "notes");
    const skills = join(folders.workspace, ".agents/skills");
    await mkdir(join(skills, "notes"), { recursive: true });
    await symlink(join(folders.home, "kept/deploy"), join(skills, "deploy"));
    await symlink(join(folders.home, "kept/notes/SKILL.md"), join(skills, "notes/SKILL.md"));

    const found = await discoverSkills(folders.workspace);
    expect(found.skills).toEqual([]);
    const why =
      "it leads through a symlink out of the workspace, where read_file does not go either: copy the skill in instead";
    expect(found.problems).toEqual([
      `skipped skill .agents/skills/deploy/SKILL.md: ${why}`,
      `skipped skill .agents/skills/notes/SKILL.md: ${why}`,
    ]);
  });

  it("confines the home folder's skills to its skills folders, which may link to each other", async () => {
    await writeSkill(folders.home, ".agents/skills", "commit-style");
    await mkdir(join(folders.home, ".claude/skills"), { recursive: true });
    // As `npx skills add` lays them out: the skill in .agents/, a link to it from .claude/.
    await symlink(
      join(folders.home, ".agents/skills/commit-style"),
      join(folders.home, ".claude/skills/commit-style"),
    );
    await writeFile(join(folders.home, "notes.md"), skillText("name: notes\ndescription: x."));
    await mkdir(join(folders.home, ".claude/skills/notes"));
    await symlink(
      join(folders.home, "notes.md"),
      join(folders.home, ".claude/skills/notes/SKILL.md"),
    );

    const found = await discover();
    expect(found.skills.map((skill) => skill.shown)).toEqual([
      "~/.agents/skills/commit-style/SKILL.md",
    ]);
    expect(found.problems).toEqual([
      'skipped skill ~/.claude/skills/commit-style/SKILL.md: the name "commit-style" is taken by ~/.agents/skills/commit-style/SKILL.md, which is used: rename one of them',
      "skipped skill ~/.claude/skills/notes/SKILL.md: it leads through a symlink out of the home folder's skills folders, where read_file does not go either: copy the skill in instead",
    ]);
  });

  it("reads a skill as big as real ones, and says how big one too big is", async () => {
    // Anthropic's skill-creator: 485 lines, 33 KB, more than the old cap of 32 KiB.
    const line =
      "- Keep SKILL.md under 500 lines; move long reference material into files beside it.";
    const real = skillText(
      "name: skill-creator\ndescription: Create skills.",
      Array(400).fill(line).join("\n"),
    );
    expect(real.length).toBeGreaterThan(33_000);
    await writeSkill(folders.workspace, ".agents/skills", "skill-creator", real);
    const big = skillText("name: big\ndescription: Big.", "x".repeat(MAX_SKILL_BYTES));
    await writeSkill(folders.workspace, ".agents/skills", "big", big);
    await mkdir(join(folders.workspace, ".agents/skills/odd/SKILL.md"), { recursive: true });

    const found = await discover();
    expect(found.skills.map((skill) => skill.name)).toEqual(["skill-creator"]);
    expect(found.problems).toEqual([
      `skipped skill .agents/skills/big/SKILL.md: it is too big: ${Buffer.byteLength(big)} bytes, the limit is ${MAX_SKILL_BYTES}: move details into files beside it`,
      "skipped skill .agents/skills/odd/SKILL.md: it is a directory, not a regular file",
    ]);
  });

  it(`reads at most ${MAX_SKILL_FOLDERS} skill folders, and counts the rest`, async () => {
    for (let n = 0; n < MAX_SKILL_FOLDERS + 3; n++) {
      await writeSkill(folders.workspace, ".agents/skills", `skill-${String(n).padStart(3, "0")}`);
    }
    const found = await discover();
    expect(found.skills).toHaveLength(MAX_SKILL_FOLDERS);
    expect(found.skills.at(-1)?.name).toBe("skill-099");
    expect(found.problems).toEqual([
      `skipped 3 skill folders: only the first ${MAX_SKILL_FOLDERS} are read; remove the skills you do not use`,
    ]);
  });
});

describe("a skill that cannot be used", () => {
  // Each kind of mistake, as the person sees it at the start of the run.
  const cases: Array<[string, string, string]> = [
    [
      "no front matter",
      "# Deploying\n\nRun the deploy script.\n",
      'it does not start with front matter: put a "---" line, then "name: deploy" and "description: ..." lines, then another "---" line at the top',
    ],
    [
      "front matter that is not YAML",
      skillText("name: deploy\ndescription: Use it: when deploying: always"),
      'its front matter is not valid YAML (Nested mappings are not allowed in compact mappings at line 2, column 14): fix it, e.g. put a description that holds ": " in quotes',
    ],
    [
      "front matter that is a list",
      skillText("- name\n- description"),
      'its front matter is not "key: value" lines: write "name:" and "description:" lines',
    ],
    [
      "no name",
      skillText("description: Deploys the shop."),
      'its front matter has no "name": add "name: deploy"',
    ],
    [
      "a name the format does not allow",
      skillText("name: Deploy_Shop\ndescription: Deploys the shop."),
      'its name "Deploy_Shop" is not valid: use lowercase letters, digits and single hyphens, at most 64 characters',
    ],
    [
      "a name that is not its folder's",
      skillText("name: release\ndescription: Deploys the shop."),
      'its name "release" is not the name of its folder "deploy": rename one so they match',
    ],
    [
      "no description",
      skillText("name: deploy"),
      'its front matter has no "description": add one line saying when to use this skill',
    ],
    [
      "an empty description",
      skillText('name: deploy\ndescription: ""'),
      'its front matter has no "description": add one line saying when to use this skill',
    ],
    [
      "a description that is too long",
      skillText(`name: deploy\ndescription: ${"d".repeat(1025)}`),
      "its description has 1025 characters, more than 1024: say only when to use the skill, and put the rest below the front matter",
    ],
  ];

  it.each(cases)("with %s is skipped with a notice naming its file", async (_, text, why) => {
    await writeSkill(folders.workspace, ".agents/skills", "deploy", text);
    await writeSkill(folders.workspace, ".agents/skills", "run-checks");

    const found = await discover();
    expect(found.problems).toEqual([`skipped skill .agents/skills/deploy/SKILL.md: ${why}`]);
    // The others are still found: one bad skill does not cost the rest.
    expect(found.skills.map((skill) => skill.name)).toEqual(["run-checks"]);
  });

  it("is found with a byte order mark, Windows line ends, and empty instructions", async () => {
    const text = "\uFEFF---\r\nname: deploy\r\ndescription: Deploys the shop.\r\n---\r\n";
    await writeSkill(folders.workspace, ".agents/skills", "deploy", text);
    expect((await discover()).skills).toMatchObject([
      { name: "deploy", description: "Deploys the shop.", body: "" },
    ]);
  });
});
