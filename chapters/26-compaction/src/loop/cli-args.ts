import { parseArgs } from "node:util";
import { COMMAND_MODES, type CommandMode } from "../commands/command-policy.ts";
import { DEFAULT_COMMAND_TIMEOUT_MS } from "../tools/run-command-tool.ts";
import { DEFAULT_BUDGETS, parseDuration, type Budgets } from "./budgets.ts";

export const USAGE = [
  'usage: pnpm start -- [--repo PATH] [options] "task"     one task, then exit',
  "       pnpm start -- [--repo PATH] [options]            interactive: type tasks at the > prompt",
  "       pnpm start                                       with no model configured: the offline demo",
  "       pnpm start -- undo [RUN_ID]                      undo a run (default: the latest)",
  "       pnpm start -- resume [RUN_ID] [--repo PATH]      continue a run from its ledger (default: the latest)",
  "options:",
  "  --repo PATH        the workspace (default: the current directory)",
  "  --yes              approve risky patches (deletes, 6+ files, 400+ lines) without asking",
  `  --max-steps N      model calls per task (default ${DEFAULT_BUDGETS.maxSteps})`,
  `  --max-tokens N     tokens per task (default ${DEFAULT_BUDGETS.maxTokens})`,
  `  --max-time T       wall time per task: 90, 90s or 5m (default ${DEFAULT_BUDGETS.maxTimeMs / 60_000}m)`,
  "  --commands MODE    ask (default): commands not allowed ask y/N; allow-list: they are refused;",
  "                     deny: no command runs",
  "  --allow-command C  run the command C without asking (repeat it for more; AGENTS.md can list",
  "                     them too, as allow-command: C lines)",
  `  --command-timeout T  kill a command after T: 90, 90s or 5m (default ${DEFAULT_COMMAND_TIMEOUT_MS / 60_000}m)`,
  "  --print-prompt     print the system prompt and its token count, then exit",
  "  --help             print this help, then exit",
].join("\n");

export type Command =
  | {
      kind: "run";
      repo: string | undefined;
      task: string | undefined;
      yes: boolean;
      budgets: Budgets;
      commands: CommandMode;
      allowCommands: string[];
      commandTimeoutMs: number;
      /** `resume [RUN_ID]`: a new run that continues this one (undefined: the latest). */
      resume?: { runId: string | undefined };
    }
  | { kind: "undo"; repo: string | undefined; runId: string | undefined }
  | { kind: "print-prompt"; repo: string | undefined }
  | { kind: "help" };

/** Thrown for arguments we cannot make sense of; the message says what to type instead. */
export class UsageError extends Error {
  override name = "UsageError";
}

export function parseCommandLine(argv: string[]): Command {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        repo: { type: "string" },
        yes: { type: "boolean", short: "y", default: false },
        "max-steps": { type: "string" },
        "max-tokens": { type: "string" },
        "max-time": { type: "string" },
        commands: { type: "string", default: "ask" },
        "allow-command": { type: "string", multiple: true, default: [] },
        "command-timeout": { type: "string" },
        "print-prompt": { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
      allowPositionals: true,
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return { kind: "help" };
  const repo = values.repo;
  if (values["print-prompt"]) return { kind: "print-prompt", repo };
  if (positionals[0] === "undo") {
    if (positionals.length > 2) {
      throw new UsageError(
        'undo takes at most one RUN_ID; for a task that starts with "undo", quote it: pnpm start -- "undo …"',
      );
    }
    return { kind: "undo", repo, runId: positionals[1] };
  }
  const resume = positionals[0] === "resume" ? { runId: positionals[1] } : undefined;
  if (resume && positionals.length > 2) {
    throw new UsageError(
      'resume takes at most one RUN_ID; for a task that starts with "resume", quote it: pnpm start -- "resume …"',
    );
  }
  const task = resume ? "" : positionals.join(" ").trim();
  return {
    resume,
    kind: "run",
    repo,
    task: task === "" ? undefined : task,
    yes: values.yes,
    budgets: {
      maxSteps: wholeNumber(values["max-steps"], "--max-steps", DEFAULT_BUDGETS.maxSteps),
      maxTokens: wholeNumber(values["max-tokens"], "--max-tokens", DEFAULT_BUDGETS.maxTokens),
      maxTimeMs: duration(values["max-time"], "--max-time", DEFAULT_BUDGETS.maxTimeMs),
    },
    commands: commandMode(values.commands),
    allowCommands: values["allow-command"].map((c) => c.trim()).filter((c) => c !== ""),
    commandTimeoutMs: duration(
      values["command-timeout"],
      "--command-timeout",
      DEFAULT_COMMAND_TIMEOUT_MS,
    ),
  };
}

function commandMode(text: string): CommandMode {
  const mode = COMMAND_MODES.find((m) => m === text);
  if (mode === undefined) {
    throw new UsageError(`--commands must be ${COMMAND_MODES.join(", ")}, got "${text}"`);
  }
  return mode;
}

function wholeNumber(text: string | undefined, flag: string, fallback: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) {
    throw new UsageError(`${flag} must be a whole number of at least 1, got "${text}"`);
  }
  return value;
}

function duration(text: string | undefined, flag: string, fallback: number): number {
  if (text === undefined) return fallback;
  const ms = parseDuration(text);
  if (ms === undefined) {
    throw new UsageError(`${flag} must be seconds or minutes like 90, 90s or 5m, got "${text}"`);
  }
  return ms;
}
