import { readGitState, runGit, type GitRunner, type GitState } from "./git-state.ts";

/** The facts about where and when the agent runs, as the prompt states them. */
export interface Environment {
  workspace: string;
  platform: string;
  /** The local date, YYYY-MM-DD: models otherwise assume their training cut-off. */
  date: string;
  git: GitState | undefined;
}

/** Everything that varies between runs is injectable, so a test can pin the prompt. */
export interface EnvironmentOptions {
  now?: Date;
  platform?: string;
  git?: GitRunner;
}

export async function readEnvironment(
  workspace: string,
  options: EnvironmentOptions = {},
): Promise<Environment> {
  return {
    workspace,
    platform: options.platform ?? process.platform,
    date: localDate(options.now ?? new Date()),
    git: await readGitState(workspace, options.git ?? runGit),
  };
}

function localDate(now: Date): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

/** The environment section of the system prompt. */
export function formatEnvironment(env: Environment): string {
  const lines = [
    "# Environment",
    "",
    `- Workspace root: ${env.workspace} (every path you use is relative to it)`,
    `- Platform: ${env.platform}`,
    `- Date: ${env.date}`,
  ];
  if (env.git === undefined) {
    lines.push("- Git: not a git repository");
    return lines.join("\n");
  }
  lines.push(`- Git branch: ${env.git.branch}`);
  if (env.git.status.length === 0) {
    lines.push("- Git status: clean");
    return lines.join("\n");
  }
  lines.push("- Git status (uncommitted changes, not necessarily yours):", "", "```");
  lines.push(...env.git.status);
  if (env.git.omitted > 0) lines.push(`... and ${env.git.omitted} more`);
  lines.push("```");
  return lines.join("\n");
}
