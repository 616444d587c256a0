import { readdir, realpath } from "node:fs/promises";
import { join } from "node:path";
import { sha256 } from "../fs/file-hash.ts";
import { readRegularFile } from "../fs/read-regular-file.ts";
import { parseSkillFile, SkillFileError, type SkillText } from "./skill-file.ts";

/** A skill found at the start of a run. */
export interface Skill extends SkillText {
  /** The folder that holds SKILL.md. */
  dir: string;
  /** SKILL.md as a person sees it: workspace-relative, or under "~/" in the home folder. */
  shown: string;
  /** The hash of the SKILL.md read, so the ledger says which bytes the model loaded. */
  sha256: string;
}

export interface FoundSkills {
  skills: Skill[];
  /** One line per skill left out, naming its SKILL.md and what to do: the run shows them. */
  problems: string[];
}

// Where skills live, in order: the project's first, so a project's skill wins over one of the
// same name in the home folder. .agents/ is the open format's folder, .claude/ Claude Code's.
const FOLDERS = [".agents/skills", ".claude/skills"];
// A skills folder is read at the start of every run: a few hundred files at most, however full.
export const MAX_SKILL_FOLDERS = 100;
// About 8,000 tokens: the format asks for SKILL.md under 5,000; longer belongs in files beside it.
export const MAX_SKILL_BYTES = 32 * 1024;

/**
 * Finds the skills of the workspace and, when `home` is given, of the user's home folder. A skill
 * that cannot be used is left out with a line saying why; nothing here stops the run.
 */
export async function discoverSkills(
  workspace: string,
  options: { home?: string } = {},
): Promise<FoundSkills> {
  const roots = FOLDERS.map((folder) => ({ dir: join(workspace, folder), shown: folder }));
  if (options.home !== undefined) {
    const home = options.home;
    roots.push(...FOLDERS.map((folder) => ({ dir: join(home, folder), shown: `~/${folder}` })));
  }
  const found: FoundSkills = { skills: [], problems: [] };
  const seen = new Set<string>(); // a workspace that is the home folder is read once
  let examined = 0;
  let notRead = 0;
  for (const root of roots) {
    const real = await realpath(root.dir).catch(() => undefined);
    if (real === undefined || seen.has(real)) continue;
    seen.add(real);
    for (const folder of await skillFolders(real)) {
      if (examined === MAX_SKILL_FOLDERS) {
        notRead += 1;
        continue;
      }
      examined += 1;
      await readSkill(join(root.dir, folder), `${root.shown}/${folder}/SKILL.md`, folder, found);
    }
  }
  if (notRead > 0) {
    found.problems.push(
      `skipped ${notRead} skill folders: only the first ${MAX_SKILL_FOLDERS} are read; remove the skills you do not use`,
    );
  }
  return found;
}

/** The names in a skills folder, sorted, so every run finds the same skills in the same order. */
async function skillFolders(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  // A symlink may be a skill folder kept elsewhere: reading its SKILL.md tells.
  return entries
    .filter((entry) => entry.isDirectory() || entry.isSymbolicLink())
    .map((entry) => entry.name)
    .sort();
}

async function readSkill(
  dir: string,
  shown: string,
  folder: string,
  found: FoundSkills,
): Promise<void> {
  const skip = (why: string) => found.problems.push(`skipped skill ${shown}: ${why}`);
  let bytes: Buffer | null;
  try {
    bytes = (await readRegularFile(join(dir, "SKILL.md"), MAX_SKILL_BYTES)).bytes;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // A folder without SKILL.md is not a skill (it may hold what several skills share).
    if (code === "ENOENT" || code === "ENOTDIR") return;
    if (code === "ELOOP") {
      return void skip("a symlink on its path goes round in a loop (ELOOP): fix or remove it");
    }
    return void skip(`it cannot be read (${code ?? String(error)}): check its permissions`);
  }
  if (bytes === null) {
    return void skip(
      `it is not a regular file of at most ${MAX_SKILL_BYTES} bytes: move details into files beside it`,
    );
  }
  let text: SkillText;
  try {
    text = parseSkillFile(bytes.toString("utf8"), folder);
  } catch (error) {
    if (!(error instanceof SkillFileError)) throw error;
    return void skip(error.message);
  }
  const first = found.skills.find((skill) => skill.name === text.name);
  if (first !== undefined) {
    return void skip(
      `the name "${text.name}" is taken by ${first.shown}, which is used: rename one of them`,
    );
  }
  found.skills.push({ ...text, dir, shown, sha256: sha256(bytes) });
}
