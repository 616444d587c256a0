import { z } from "zod";
import { commandRefusal, type CommandApprover } from "../commands/command-approval.ts";
import { judgeCommand, type CommandPolicy } from "../commands/command-policy.ts";
import { childEnv } from "../commands/child-env.ts";
import { runCommand, type CommandOutcome } from "../commands/run-command.ts";
import type { Sandbox } from "../commands/sandbox.ts";
import { trackCommand, type FileChange } from "../commands/track-command.ts";
import { CHANGE_LETTER } from "../commands/workspace-snapshot.ts";
import { defineTool, type AnyTool, type ToolContext } from "./define-tool.ts";
import { ToolError } from "./tool-error.ts";

/** Everything the run_command tool needs from the harness, set once per run. */
export interface CommandSettings {
  policy: CommandPolicy;
  approver: CommandApprover;
  /** bubblewrap when it works here; undefined: commands run unconfined. */
  sandbox: Sandbox | undefined;
  timeoutMs: number;
  /** The API key and any other value a command's environment must never hold. */
  secrets: readonly string[];
}

/** The settings without the approver: what the command line and AGENTS.md decide. */
export type CommandRules = Omit<CommandSettings, "approver">;

/** Long enough for a project's test suite, short enough that a hung command does not eat the run. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 2 * 60_000;

export function runCommandTool(settings: CommandSettings): AnyTool {
  return defineTool({
    name: "run_command",
    description:
      "Run a shell command in the workspace root, e.g. the tests. Returns exit code, output and changed files.",
    effect: "execute",
    schema: z.object({ command: z.string().min(1) }),
    async execute({ command }, context) {
      await mayRun(settings, command, context);
      if (!context.ledger) {
        // Without a ledger nobody would know what the command changed, nor undo it.
        throw new ToolError(
          "io_error",
          "run_command needs the run's ledger.",
          "This is a bug in the harness.",
        );
      }
      const { outcome, changes, notices } = await trackCommand(
        context.ledger,
        context.cwd,
        command,
        () =>
          runCommand({
            command,
            cwd: context.cwd,
            timeoutMs: settings.timeoutMs,
            signal: context.signal,
            env: childEnv(process.env, settings.secrets),
            secrets: settings.secrets,
            sandbox: settings.sandbox,
          }),
        settings.sandbox?.name ?? "none",
      );
      return {
        ok: outcome.exitCode === 0,
        code: resultCode(outcome),
        content: describeOutcome(command, outcome, changes, notices),
      };
    },
  });
}

/** Why the command did not succeed, as a code the harness and the ledger keep; none if it did. */
function resultCode(outcome: CommandOutcome): string | undefined {
  if (outcome.timedOut) return "timeout";
  if (outcome.aborted) return "aborted";
  if (outcome.exitCode === null) return "killed";
  return outcome.exitCode === 0 ? undefined : "exit_code";
}

/** Runs the policy, then the person at the terminal; throws the refusal the model reads. */
async function mayRun(
  settings: CommandSettings,
  command: string,
  context: ToolContext,
): Promise<void> {
  const verdict = judgeCommand(settings.policy, command);
  if (verdict === "run") return;
  if (verdict === "refuse") throw commandRefusal(command, settings.policy);
  const decision = await settings.approver(command, context.cwd, context.signal);
  if (decision !== "approved") throw commandRefusal(command, settings.policy, decision);
}

/** A command's result names at most this many changed files. */
export const MAX_LISTED_CHANGES = 50;

/** What the model reads: how it ended, what it printed, what it changed on disk, what was unseen. */
export function describeOutcome(
  command: string,
  outcome: CommandOutcome,
  changes: readonly FileChange[],
  notices: readonly string[] = [],
): string {
  const seconds = `${(outcome.durationMs / 1000).toFixed(1)} s`;
  const ended = outcome.timedOut
    ? `timed out after ${seconds} and was killed`
    : outcome.aborted
      ? `was stopped by the user after ${seconds}`
      : outcome.exitCode === null
        ? `was killed by ${outcome.signal ?? "a signal"} after ${seconds}`
        : `exit ${outcome.exitCode} after ${seconds}`;
  // A command that creates 5,000 files must not fill the context: the first ones are named.
  const listed = changes.slice(0, MAX_LISTED_CHANGES);
  const more = changes.length - listed.length;
  const changed =
    changes.length === 0
      ? "none"
      : listed.map((change) => `${CHANGE_LETTER[change.status]} ${change.path}`).join(", ") +
        (more > 0 ? ` … and ${more} more (the run's ledger has them all)` : "");
  // The ending first: the terminal shows a failed call's first line.
  return [
    `${ended}: ${command}`,
    outcome.output.trimEnd(),
    `files changed by this command: ${changed}`,
    ...notices.map((notice) => `Note: ${notice}`),
  ].join("\n");
}
