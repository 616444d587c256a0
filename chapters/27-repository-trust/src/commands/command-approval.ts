import type { ApprovalDecision, ApproverOptions } from "../loop/approval.ts";
import { visible } from "../terminal/visible-text.ts";
import { ToolError } from "../tools/tool-error.ts";
import type { CommandPolicy } from "./command-policy.ts";

/** Asks whether a command that is not allowed may run; the same rules as for risky patches. */
export type CommandApprover = (
  command: string,
  cwd: string,
  signal: AbortSignal,
) => Promise<ApprovalDecision>;

export function createCommandApprover({ yes, interactive, ask }: ApproverOptions): CommandApprover {
  return async (command, cwd, signal) => {
    if (yes) return "approved";
    // Nobody to ask (CI, a pipe): the safe default is no.
    if (!interactive) return "no_terminal";
    // The exact text and where it runs: what the person approves is what runs.
    const answer = await ask(`Run \`${visible(command)}\` in ${cwd}? [y/N] `, signal);
    return isYes(answer) ? "approved" : "declined";
  };
}

export function isYes(answer: string): boolean {
  return /^y(es)?$/i.test(answer.trim());
}

/** Asked once per change to AGENTS.md's allow-command lines (agents-md-trust.ts). */
export function trustQuestion(workspace: string, lines: readonly string[]): string {
  return [
    `AGENTS.md in ${visible(workspace)} lets these commands run without asking, new or changed since you last confirmed:`,
    ...lines.map((line) => `  ${visible(line)}`),
    "Trust them here from now on? [y/N] ",
  ].join("\n");
}

// The command is written out by visible() (chapter 1): `\r` as \x0d, ESC as \x1b, U+202E as
// \u202e, or the question could show one command while another runs.
export { visible };

/** What the model reads when its command did not run: an error it can act on. */
export function commandRefusal(
  command: string,
  policy: CommandPolicy,
  decision?: Exclude<ApprovalDecision, "approved">,
): ToolError {
  const allowed =
    policy.allowed.length === 0
      ? "No command is allowed without asking"
      : `Allowed without asking: ${policy.allowed.map((c) => `\`${c}\``).join(", ")}`;
  if (policy.mode === "deny") {
    return new ToolError(
      "command_not_allowed",
      `Running commands is turned off for this run (--commands deny); \`${command}\` did not run.`,
      "Finish without running it, and tell the user which command would check your change.",
    );
  }
  if (decision === undefined) {
    return new ToolError(
      "command_not_allowed",
      `\`${command}\` is not an allowed command, and this run asks no one (--commands allow-list); it did not run.`,
      `${allowed}. Run one of those, or finish and tell the user which command to allow.`,
    );
  }
  if (decision === "declined") {
    return new ToolError(
      "not_approved",
      `The user declined to run \`${command}\`.`,
      `Do not run it again. ${allowed}. Continue without it, or finish and ask the user how to proceed.`,
    );
  }
  return new ToolError(
    "not_approved",
    `\`${command}\` needs the user's approval, but there is no terminal to ask, so the answer is no.`,
    `${allowed}. Continue without it, or finish and tell the user to allow it: --allow-command ${shellQuoted(command)}, or --yes.`,
  );
}

/** The command as one shell word, for a hint the person may paste: 'it'\''s' for it's. */
function shellQuoted(command: string): string {
  return `'${visible(command).replaceAll("'", "'\\''")}'`;
}
