import { readdir, realpath } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, sep } from "node:path";
import { sha256 } from "../fs/file-hash.ts";
import { describeFileType, readRegularFile } from "../fs/read-regular-file.ts";
import { parseSkillFile, SkillFileError, type SkillText } from "./skill-file.ts";

/** A skill found at the start of a run. */
export interface Skill extends SkillText {
  /** The real folder that holds SKILL.md: its files are the ones load_skill may show. */
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
// A safety cap, not the format's advice (500 lines, 5,000 tokens), which real skills pass: Anthropic's
// skill-creator is 33 KB. It is what one read_file call shows at most (chapter 7), the most one
// tool result should carry; a bigger file could not go to the model whole anyway.
export const MAX_SKILL_BYTES = 100_000;

/**
 * Finds the skills of the workspace and, when `home` is given, of the user's home folder. A skill
 * that cannot be used is left out with a line saying why; nothing here stops the run.
 */
export async function discoverSkills(
  workspace: string,
  options: { home?: string } = {},
): Promise<FoundSkills> {
  // A skill is confined like read_file: the workspace's to the workspace, the home folder's
  // to the home folder's skills folders (which may link to each other), never through a symlink out.
  const places = [{ base: workspace, shown: "", bounds: [await realpath(workspace)] }];
  if (options.home !== undefined) {
    const home = options.home;
    const bounds = await Promise.all(FOLDERS.map((f) => realpath(join(home, f)).catch(() => "")));
    places.push({ base: home, shown: "~/", bounds: bounds.filter((b) => b !== "") });
  }
  const found: FoundSkills = { skills: [], problems: [] };
  const seen = new Set<string>(); // a workspace that is the home folder is read once
  let examined = 0;
  let notRead = 0;
  for (const place of places) {
    for (const root of FOLDERS) {
      const real = await realpath(join(place.base, root)).catch(() => undefined);
      if (real === undefined || seen.has(real)) continue;
      seen.add(real);
      for (const folder of await skillFolders(real)) {
        if (examined === MAX_SKILL_FOLDERS) {
          notRead += 1;
          continue;
        }
        examined += 1;
        const dir = join(place.base, root, folder);
        const shown = `${place.shown}${root}/${folder}/SKILL.md`;
        await readSkill({ dir, shown, folder, bounds: place.bounds }, found);
      }
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

interface SkillPlace {
  dir: string;
  shown: string;
  folder: string;
  /** The real folders its SKILL.md must be in. */
  bounds: string[];
}

async function readSkill(place: SkillPlace, found: FoundSkills): Promise<void> {
  const { shown, folder } = place;
  const skip = (why: string) => found.problems.push(`skipped skill ${shown}: ${why}`);
  let real: string;
  let file: Awaited<ReturnType<typeof readRegularFile>>;
  try {
    real = await realpath(join(place.dir, "SKILL.md"));
    if (!place.bounds.some((bound) => isInside(bound, real))) {
      const where = shown.startsWith("~/") ? "the home folder's skills folders" : "the workspace";
      return void skip(
        `it leads through a symlink out of ${where}, where read_file does not go either: copy the skill in instead`,
      );
    }
    file = await readRegularFile(real, MAX_SKILL_BYTES);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // A folder without SKILL.md is not a skill (it may hold what several skills share).
    if (code === "ENOENT" || code === "ENOTDIR") return;
    if (code === "ELOOP") {
      return void skip("a symlink on its path goes round in a loop (ELOOP): fix or remove it");
    }
    return void skip(`it cannot be read (${code ?? String(error)}): check its permissions`);
  }
  const bytes = file.bytes;
  if (!file.stats.isFile()) {
    return void skip(`it is ${describeFileType(file.stats)}, not a regular file`);
  }
  if (bytes === null) {
    return void skip(
      `it is too big: ${file.stats.size} bytes, the limit is ${MAX_SKILL_BYTES}: move details into files beside it`,
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
  found.skills.push({ ...text, dir: dirname(real), shown, sha256: sha256(bytes) });
}

function isInside(folder: string, path: string): boolean {
  const rel = relative(folder, path);
  return rel !== "" && rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}
