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

/**
 * git reads the repository's own config, and some of it names programs to run: core.fsmonitor
 * on every status, a hook when the index is written, a filter when a file must be hashed again.
 * A command the model ran can write `.git/config` (or `git init` a repository of its own), so
 * the harness's git runs with none of them, without optional locks (it never writes the index),
 * and with a minimal environment: never the API key.
 */
const SAFE_GIT = [
  "--no-optional-locks",
  "-c",
  "core.fsmonitor=false",
  "-c",
  "core.hooksPath=/dev/null",
];
const GIT_ENV = ["PATH", "HOME", "XDG_CONFIG_HOME", "LANG", "LC_ALL", "LC_CTYPE"];

export const runGit: GitRunner = async (args, cwd) => {
  const filters = await filterDrivers(cwd);
  return execGit([...SAFE_GIT, ...filters.flatMap(neutralFilter), ...args], cwd);
};

function execGit(args: string[], cwd: string): Promise<string> {
  const env = Object.fromEntries(GIT_ENV.map((name) => [name, process.env[name]]));
  return new Promise((resolve, reject) => {
    execFile("git", args, { cwd, env, timeout: 5_000, encoding: "utf8" }, (error, stdout) => {
      if (error) reject(error);
      else resolve(stdout);
    });
  });
}

/** Every filter driver any config names; reading config runs nothing. */
async function filterDrivers(cwd: string): Promise<string[]> {
  const names = await execGit(
    [...SAFE_GIT, "config", "--name-only", "--get-regexp", "^filter\\."],
    cwd,
  ).catch(() => "");
  const drivers = names
    .split("\n")
    .flatMap((name) => /^filter\.(.+)\.[^.]+$/s.exec(name)?.[1] ?? []);
  // `-c a=b` splits at the first "=": a driver named with one cannot be turned off, so no git.
  if (drivers.some((driver) => driver.includes("="))) throw new Error("unsafe filter driver name");
  return [...new Set(drivers)];
}

/** The driver's programs emptied: git then hashes the file as it is on disk. */
function neutralFilter(driver: string): string[] {
  return ["clean", "smudge", "process"]
    .flatMap((key) => ["-c", `filter.${driver}.${key}=`])
    .concat(["-c", `filter.${driver}.required=false`]);
}

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
    // harness's own .agent/ (ledgers, backups, notes) is not the project's work: left out. A
    // submodule is a repository with a config of its own, whose filters runGit never saw.
    const args = ["status", "--short", "--untracked-files=normal", "--ignore-submodules=all"];
    args.push("--", ".", ":(exclude).agent");
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
