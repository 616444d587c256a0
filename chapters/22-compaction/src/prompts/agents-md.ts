import { readFile } from "node:fs/promises";
import { join } from "node:path";

/** A project's own instructions for agents, as far as they fit in the prompt. */
export interface AgentsMd {
  text: string;
  /** Characters left out because the file is longer than the cap. */
  omittedChars: number;
}

// About 2,000 tokens: enough for real project conventions, small enough that a
// huge AGENTS.md cannot crowd the task out of the context window.
export const AGENTS_MD_MAX_CHARS = 8_000;

/** Reads AGENTS.md at the workspace root; undefined when there is none. */
export async function readAgentsMd(
  cwd: string,
  maxChars = AGENTS_MD_MAX_CHARS,
): Promise<AgentsMd | undefined> {
  let text: string;
  try {
    text = await readFile(join(cwd, "AGENTS.md"), "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // A missing file, or a folder by that name, simply means "no instructions".
    if (code === "ENOENT" || code === "EISDIR") return undefined;
    throw error;
  }
  text = text.replace(/\r\n/g, "\n").trim();
  if (text === "") return undefined;
  if (text.length <= maxChars) return { text, omittedChars: 0 };
  return { text: text.slice(0, maxChars), omittedChars: text.length - maxChars };
}
