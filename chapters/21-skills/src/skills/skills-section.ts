import { countTextTokens } from "../context/token-counter.ts";
import type { SkillText } from "./skill-file.ts";

// Progressive disclosure: the prompt names each skill and says when to use it, a line each;
// the instructions come only when the model loads one. The list has a cap of its own, so a
// home folder full of skills cannot crowd the task out of every request.
export const SKILLS_MAX_TOKENS = 400;

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
  const lines = ["# Skills", "", INTRO, ""];
  let listed = 0;
  for (const skill of skills) {
    const line = `- ${skill.name}: ${skill.description.replace(/\s+/g, " ")}`;
    // The line saying how many are left out must fit too, whenever one is.
    const rest = skills.length - listed - 1;
    const text = [...lines, line, ...(rest > 0 ? [leftOut(rest)] : [])].join("\n");
    if (countTextTokens(text) > maxTokens) break;
    lines.push(line);
    listed += 1;
  }
  if (listed < skills.length) lines.push(leftOut(skills.length - listed));
  return lines.join("\n");
}

function leftOut(count: number): string {
  const skills = count === 1 ? "1 more skill is" : `${count} more skills are`;
  return `(${skills} not listed here, to keep this prompt short: \`load_skill\` with a name it does not know answers with every name.)`;
}
