// Scratch folders for the skills tests: a workspace and a home folder of their own, so no test
// ever reads the real home.
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach } from "vitest";

export interface SkillFolders {
  workspace: string;
  home: string;
}

export function useSkillFolders(): SkillFolders {
  const folders: SkillFolders = { workspace: "", home: "" };
  beforeEach(async () => {
    folders.workspace = await realpath(await mkdtemp(join(tmpdir(), "skills-workspace-")));
    folders.home = await realpath(await mkdtemp(join(tmpdir(), "skills-home-")));
  });
  afterEach(async () => {
    await rm(folders.workspace, { recursive: true, force: true });
    await rm(folders.home, { recursive: true, force: true });
  });
  return folders;
}

/** A SKILL.md with the given front matter lines, and instructions under it. */
export function skillText(frontMatter: string, body = "Do the thing."): string {
  return `---\n${frontMatter}\n---\n\n${body}\n`;
}

/** Writes `<base>/<folder>/<name>/SKILL.md` (and the folders on the way). */
export async function writeSkill(
  base: string,
  folder: string,
  name: string,
  text = skillText(`name: ${name}\ndescription: Use it for ${name}.`),
): Promise<string> {
  const path = join(base, folder, name, "SKILL.md");
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
  return path;
}
