import { readFile } from "node:fs/promises";
import { fitList } from "./fit-list.ts";
import {
  findNestedAgentsMd,
  readAgentsMd,
  type AgentsMd,
  type NestedAgentsMd,
} from "./agents-md.ts";
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
  /** AGENTS.md files in sub-folders; optional, so parts built before them stay valid. */
  nested?: { files: NestedAgentsMd[]; complete: boolean };
}

// The list of nested AGENTS.md files has a cap of its own: a repository can have dozens.
export const NESTED_AGENTS_MD_MAX_TOKENS = 400;

/** Pure: the same parts always give the same prompt, byte for byte. */
export function assembleSystemPrompt(parts: SystemPromptParts): string {
  const sections = parts.texts.map((text) => text.trim());
  sections.push(formatEnvironment(parts.environment));
  const agentsMd = formatAgentsMd(parts.agentsMd, parts.nested);
  if (agentsMd !== undefined) sections.push(agentsMd);
  return sections.join("\n\n") + "\n";
}

export async function loadPromptTexts(): Promise<string[]> {
  return Promise.all(PROMPT_FILES.map((file) => readFile(new URL(file, import.meta.url), "utf8")));
}

/** The system prompt for a run in `workspace`, read fresh from disk and git. */
export async function buildSystemPrompt(
  workspace: string,
  options: EnvironmentOptions = {},
): Promise<string> {
  const [texts, environment, agentsMd, nested] = await Promise.all([
    loadPromptTexts(),
    readEnvironment(workspace, options),
    readAgentsMd(workspace),
    findNestedAgentsMd(workspace),
  ]);
  return assembleSystemPrompt({ texts, environment, agentsMd, nested });
}

function formatAgentsMd(
  agentsMd: AgentsMd | undefined,
  nested: SystemPromptParts["nested"],
): string | undefined {
  const found = nested?.files ?? [];
  if (agentsMd === undefined && found.length === 0) return undefined;
  const lines = [
    "# Project instructions (AGENTS.md)",
    "",
    "The project's maintainers wrote these for agents. Follow them unless they conflict with the rules above.",
  ];
  if (agentsMd?.unread !== undefined) {
    lines.push("", `[AGENTS.md is not in this prompt: ${agentsMd.unread}.]`);
  } else if (agentsMd !== undefined) {
    lines.push("", agentsMd.text);
    const cut = agentsMd.cut;
    if (cut !== undefined && cut.midLine) {
      lines.push(
        "",
        `[AGENTS.md is cut here, inside line 1 of ${cut.of}, to fit this prompt: read the rest with read_file.]`,
      );
    } else if (cut !== undefined) {
      lines.push(
        "",
        `[AGENTS.md is cut here, after line ${cut.line} of ${cut.of}, to fit this prompt: read the rest with read_file, from offset ${cut.line + 1}.]`,
      );
    }
  }
  if (found.length > 0) lines.push("", formatNested(found, nested?.complete ?? true));
  return lines.join("\n");
}

/** Codex's rule: a nested AGENTS.md applies to its folder, and wins there where they differ. */
function formatNested(files: NestedAgentsMd[], complete: boolean): string {
  const head = [
    "## AGENTS.md in sub-folders",
    "",
    "Each applies to the files under its folder and, where they differ, wins over the AGENTS.md " +
      "files above it. Before you work under one of these folders, read its AGENTS.md with read_file." +
      (complete
        ? ""
        : ' These are the first ones found: list_files with glob "AGENTS.md" finds them all.'),
    "",
  ];
  const entries = files.map((file) => ({ name: file.path, text: file.firstLine }));
  return fitList(head, entries, NESTED_AGENTS_MD_MAX_TOKENS, (cuts) => {
    if (!cuts.namesOnly)
      return `(${cuts.shortened} of these first lines are shortened to fit this prompt.)`;
    const more =
      cuts.leftOut > 0
        ? `; ${cuts.leftOut} more are not listed: list_files with glob "AGENTS.md" finds them`
        : "";
    return `(Only their paths here, to keep this prompt short${more}.)`;
  });
}
