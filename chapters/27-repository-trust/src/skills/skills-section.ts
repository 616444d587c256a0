import { fitList, type ListCuts } from "../prompts/fit-list.ts";
import type { SkillText } from "./skill-file.ts";

// Progressive disclosure: the prompt names each skill and says when to use it, a line each;
// the instructions come only when the model loads one. The list has a cap of its own, so a
// home folder full of skills cannot crowd the task out of every request: descriptions are
// shortened, evenly, then left out, so that every skill is still named. At most 100 skills are
// read (discover-skills.ts); 78 names of three or four words take about 600 tokens.
export const SKILLS_MAX_TOKENS = 1_000;

const INTRO =
  "Skills are procedures written down for particular tasks. When your task matches a skill's " +
  "description, call `load_skill` with its name before you start, and follow it unless it " +
  "conflicts with the rules above. " +
  '`load_skill` with "name/file" loads a file beside the skill.';

/** The "# Skills" section of the system prompt; undefined when there are no skills. */
export function formatSkills(
  skills: readonly Pick<SkillText, "name" | "description">[],
  maxTokens = SKILLS_MAX_TOKENS,
): string | undefined {
  if (skills.length === 0) return undefined;
  const entries = skills.map((skill) => ({ name: skill.name, text: skill.description }));
  return fitList(["# Skills", "", INTRO, ""], entries, maxTokens, cutsNote);
}

function cutsNote(cuts: ListCuts): string {
  if (!cuts.namesOnly) {
    const skills = cuts.shortened === 1 ? "1 description is" : `${cuts.shortened} descriptions are`;
    return `(${skills} shortened to keep this prompt short: \`load_skill\` shows a skill in full.)`;
  }
  if (cuts.leftOut === 0) {
    return "(Only the names, to keep this prompt short: `load_skill` shows a skill in full.)";
  }
  return `(Only the names, to keep this prompt short, and ${cuts.leftOut} more are not named here: \`load_skill\` with a name it does not know answers with every name.)`;
}
