import { readFile } from "node:fs/promises";
import type { Skill } from "../skills/discover-skills.ts";
import { formatSkills } from "../skills/skills-section.ts";
import { readAgentsMd, type AgentsMd } from "./agents-md.ts";
import {
  formatEnvironment,
  readEnvironment,
  type Environment,
  type EnvironmentOptions,
} from "./environment.ts";

// The reviewed text, in prompt order. They are Markdown files, not strings in
// code, so a change to what the model is told shows up as a plain text diff.
export const PROMPT_FILES = ["role.md", "rules.md", "patch-format.md"] as const;

export interface SystemPromptParts {
  /** The contents of PROMPT_FILES, in order. */
  texts: string[];
  environment: Environment;
  agentsMd: AgentsMd | undefined;
  /** The skills found (chapter 21): only their names and descriptions go in. */
  skills?: readonly Pick<Skill, "name" | "description">[];
}

export interface PromptOptions extends EnvironmentOptions {
  /** The skills found at the start of the run. */
  skills?: readonly Skill[];
}

/** Pure: the same parts always give the same prompt, byte for byte. */
export function assembleSystemPrompt(parts: SystemPromptParts): string {
  const sections = parts.texts.map((text) => text.trim());
  sections.push(formatEnvironment(parts.environment));
  if (parts.agentsMd !== undefined) sections.push(formatAgentsMd(parts.agentsMd));
  const skills = formatSkills(parts.skills ?? []);
  if (skills !== undefined) sections.push(skills);
  return sections.join("\n\n") + "\n";
}

export async function loadPromptTexts(): Promise<string[]> {
  return Promise.all(PROMPT_FILES.map((file) => readFile(new URL(file, import.meta.url), "utf8")));
}

/** The system prompt for a run in `workspace`, read fresh from disk and git. */
export async function buildSystemPrompt(
  workspace: string,
  options: PromptOptions = {},
): Promise<string> {
  const [texts, environment, agentsMd] = await Promise.all([
    loadPromptTexts(),
    readEnvironment(workspace, options),
    readAgentsMd(workspace),
  ]);
  return assembleSystemPrompt({ texts, environment, agentsMd, skills: options.skills });
}

function formatAgentsMd(agentsMd: AgentsMd): string {
  const lines = [
    "# Project instructions (AGENTS.md)",
    "",
    "The project's maintainers wrote these for agents. Follow them unless they conflict with the rules above.",
    "",
    agentsMd.text,
  ];
  if (agentsMd.omittedChars > 0) {
    lines.push(
      "",
      `[AGENTS.md is cut here: ${agentsMd.omittedChars} more characters. Call read_file on AGENTS.md if you need the rest.]`,
    );
  }
  return lines.join("\n");
}
