/**
 * Which commands the agent may run. An allowed command runs without a question; any other asks
 * the person at the terminal (mode "ask"), or is refused (mode "allow-list"); with mode "deny"
 * no command runs at all. A command is allowed by its exact text only: allowing
 * `node check.mjs` must not allow `node check.mjs; rm -rf ~`, which a prefix rule would.
 */
export type CommandMode = "ask" | "allow-list" | "deny";

export const COMMAND_MODES: readonly CommandMode[] = ["ask", "allow-list", "deny"];

export interface CommandPolicy {
  mode: CommandMode;
  /** From --allow-command and from AGENTS.md's `allow-command:` lines. */
  allowed: readonly string[];
}

export type CommandVerdict = "run" | "ask" | "refuse";

export function judgeCommand(policy: CommandPolicy, command: string): CommandVerdict {
  if (policy.mode === "deny") return "refuse";
  if (policy.allowed.includes(command.trim())) return "run";
  return policy.mode === "ask" ? "ask" : "refuse";
}

/**
 * The commands a project allows in its AGENTS.md, one per line: `allow-command: node check.mjs`,
 * as a list item or not, the command in backticks or not. A line inside a code fence (``` or
 * ~~~) is an example, not a rule. The file is the repository's own, so the run prints what it
 * allowed: a cloned project's choices are shown, not silently trusted.
 */
export function allowedInAgentsMd(text: string): string[] {
  const rule = /^[ \t]*(?:[-*][ \t]+)?allow-command:[ \t]*`?([^`\n]+?)`?[ \t]*$/i;
  const allowed: string[] = [];
  let fence: string | undefined; // the opening fence while inside one
  for (const line of text.split(/\r?\n|\r/)) {
    const marker = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line);
    if (marker) {
      if (fence === undefined) fence = marker[1];
      else if (closes(fence, marker[1]!, marker[2]!)) fence = undefined;
      continue;
    }
    const command = fence === undefined ? rule.exec(line)?.[1]?.trim() : undefined;
    if (command) allowed.push(command);
  }
  return allowed;
}

/** CommonMark's rule: the same character, at least as many, and nothing after but spaces. */
function closes(opening: string, marker: string, rest: string): boolean {
  return marker[0] === opening[0] && marker.length >= opening.length && rest.trim() === "";
}
