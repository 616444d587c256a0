import { execFile } from "node:child_process";

/** What the model should know about the workspace's version control. */
export interface GitState {
  branch: string;
  /** `git status --short` lines, at most MAX_STATUS_LINES of them. */
  status: string[];
  /** How many status lines were left out to keep the prompt small. */
  omitted: number;
}

export const MAX_STATUS_LINES = 20;

/** Runs git in a folder and returns its stdout; rejects when git fails or is missing. */
export type GitRunner = (args: string[], cwd: string) => Promise<string>;

export const runGit: GitRunner = (args, cwd) =>
  new Promise((resolve, reject) => {
    execFile("git", args, { cwd, timeout: 5_000, encoding: "utf8" }, (error, stdout) => {
      if (error) reject(error);
      else resolve(stdout);
    });
  });

/**
 * The branch and a short status, or undefined when `cwd` is not inside a git
 * repository (or git is not installed): a prompt must never fail because of it.
 */
export async function readGitState(
  cwd: string,
  git: GitRunner = runGit,
): Promise<GitState | undefined> {
  try {
    await git(["rev-parse", "--is-inside-work-tree"], cwd);
  } catch {
    return undefined;
  }
  try {
    // --untracked-files=normal lists a new folder once instead of every file in it. The
    // harness's own .agent/ (ledgers, backups, notes) is not the project's work: left out.
    const args = ["status", "--short", "--untracked-files=normal", "--", ".", ":(exclude).agent"];
    const status = (await git(args, cwd)).split("\n").filter((line) => line.trim() !== "");
    return {
      branch: await readBranch(cwd, git),
      status: status.slice(0, MAX_STATUS_LINES),
      omitted: Math.max(0, status.length - MAX_STATUS_LINES),
    };
  } catch {
    return undefined;
  }
}

// symbolic-ref also names the branch of a repository without commits, where
// `rev-parse HEAD` fails; it fails itself only on a detached HEAD.
async function readBranch(cwd: string, git: GitRunner): Promise<string> {
  try {
    return (await git(["symbolic-ref", "--short", "HEAD"], cwd)).trim();
  } catch {
    return "(detached HEAD)";
  }
}
