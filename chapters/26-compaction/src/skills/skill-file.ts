import { parse } from "yaml";

// A skill is a folder with a SKILL.md: YAML front matter between two "---" lines, with the
// skill's name and when to use it, then the instructions in Markdown. Files beside it (scripts,
// references) are optional. This is the open Agent Skills format (agentskills.io), the one Claude
// Code and Codex read, so a skill written for them works here unchanged.

/** What a SKILL.md says: who it is, when to use it, and what to do. */
export interface SkillText {
  name: string;
  /** When to use the skill: the one thing the model sees before it loads it. */
  description: string;
  /** The Markdown after the front matter: what load_skill returns. */
  body: string;
}

// The format's rules: lowercase letters and digits in words joined by single hyphens.
const NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/;
export const MAX_NAME_CHARS = 64;
export const MAX_DESCRIPTION_CHARS = 1024;

const FRONT_MATTER = /^---[ \t]*\r?\n(?:([\s\S]*?)\r?\n)?---[ \t]*(?:\r?\n|$)/;

/** Why a SKILL.md cannot be used, and what to do about it. */
export class SkillFileError extends Error {
  override name = "SkillFileError";
}

/** Reads the SKILL.md of the folder `folder`; throws a SkillFileError saying what to fix. */
export function parseSkillFile(text: string, folder: string): SkillText {
  const source = text.replace(/^\uFEFF/, ""); // a byte order mark some editors write
  const match = FRONT_MATTER.exec(source);
  if (match === null) {
    throw new SkillFileError(
      `it does not start with front matter: put a "---" line, then "name: ${folder}" and "description: ..." lines, then another "---" line at the top`,
    );
  }
  const fields = parseFields(match[1] ?? "");
  const name = fields.name;
  if (name === undefined || name === null || name === "") {
    throw new SkillFileError(`its front matter has no "name": add "name: ${folder}"`);
  }
  if (typeof name !== "string" || !NAME.test(name) || name.length > MAX_NAME_CHARS) {
    throw new SkillFileError(
      `its name ${JSON.stringify(name)} is not valid: use lowercase letters, digits and single hyphens, at most ${MAX_NAME_CHARS} characters`,
    );
  }
  if (name !== folder) {
    throw new SkillFileError(
      `its name "${name}" is not the name of its folder "${folder}": rename one so they match`,
    );
  }
  const description = fields.description;
  if (typeof description !== "string" || description.trim() === "") {
    throw new SkillFileError(
      `its front matter has no "description": add one line saying when to use this skill`,
    );
  }
  if (description.length > MAX_DESCRIPTION_CHARS) {
    throw new SkillFileError(
      `its description has ${description.length} characters, more than ${MAX_DESCRIPTION_CHARS}: say only when to use the skill, and put the rest below the front matter`,
    );
  }
  return { name, description: description.trim(), body: source.slice(match[0].length).trim() };
}

function parseFields(yaml: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = parse(yaml, { logLevel: "error" }); // an unknown tag only warns, and warnings never stop the parse: keep them off the terminal
  } catch (error) {
    // The parser's first line names the problem and where ("... at line 2, column 14:"); the
    // rest draws the line again.
    const message = error instanceof Error ? error.message : String(error);
    const reason = message.split("\n")[0]!.replace(/:$/, "");
    throw new SkillFileError(
      `its front matter is not valid YAML (${reason}): fix it, e.g. put a description that holds ": " in quotes`,
    );
  }
  if (value === null) return {}; // "---" and "---" with nothing between
  if (typeof value !== "object" || Array.isArray(value)) {
    throw new SkillFileError(
      `its front matter is not "key: value" lines: write "name:" and "description:" lines`,
    );
  }
  return value as Record<string, unknown>;
}
