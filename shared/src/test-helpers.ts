// Helpers for tests that work with real files and real processes.

import { spawn } from "node:child_process";
import {
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  readlink,
  realpath,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** A fresh empty folder under the OS temp dir; its real path (no symlinks in it). */
export async function makeTempDir(prefix = "agent-test-"): Promise<string> {
  return realpath(await mkdtemp(join(tmpdir(), prefix)));
}

/**
 * Writes files below `dir`, creating folders as needed. Keys are relative paths with
 * "/" separators; a string is written as UTF-8, a Uint8Array byte for byte.
 */
export async function writeTree(
  dir: string,
  files: Record<string, string | Uint8Array>,
): Promise<void> {
  for (const [relPath, content] of Object.entries(files)) {
    const path = join(dir, relPath);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, content);
  }
}

/**
 * Reads every file below `dir` into `{ "rel/path": content }`, sorted by path.
 *
 * Content is decoded as latin1: one character per byte, so the strings are byte-exact
 * (a BOM, CRLF or invalid UTF-8 all survive, and `Buffer.from(s, "latin1")` gives the
 * bytes back). ASCII reads as itself; non-ASCII UTF-8 shows as several characters.
 * A symlink is recorded as "symlink -> <target>", not followed. Empty folders do not
 * appear. `ignore` holds relative paths (files or folders) to leave out, e.g. [".agent"].
 */
export async function readTree(
  dir: string,
  options: { ignore?: string[] } = {},
): Promise<Record<string, string>> {
  const ignore = options.ignore ?? [];
  const isIgnored = (rel: string): boolean =>
    ignore.some((entry) => rel === entry || rel.startsWith(`${entry.replace(/\/$/, "")}/`));
  const tree: Record<string, string> = {};
  const walk = async (rel: string): Promise<void> => {
    const entries = await readdir(join(dir, rel), { withFileTypes: true });
    for (const entry of entries) {
      const childRel = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (isIgnored(childRel)) continue;
      const path = join(dir, childRel);
      const stats = await lstat(path);
      if (stats.isSymbolicLink()) tree[childRel] = `symlink -> ${await readlink(path)}`;
      else if (stats.isDirectory()) await walk(childRel);
      else tree[childRel] = (await readFile(path)).toString("latin1");
    }
  };
  await walk("");
  return Object.fromEntries(Object.entries(tree).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

export interface CommandResult {
  /** Exit code; null when the process was ended by a signal (see `signal`). */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunCommandOptions {
  cwd?: string;
  /** Written to stdin, which is then closed. Without it stdin is closed at once. */
  input?: string;
  /** Added to (and overriding) the current process.env; a value of undefined removes a variable. */
  env?: Record<string, string | undefined>;
  /** The process is killed after this long. Default 60 s: generous, only a guard against hangs. */
  timeoutMs?: number;
}

/** Runs a program (no shell) and collects its output; never rejects for a non-zero exit. */
export function runCommand(
  command: string,
  args: string[],
  options: RunCommandOptions = {},
): Promise<CommandResult> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries({ ...process.env, ...options.env })) {
    if (value !== undefined) env[key] = value;
  }
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env, stdio: "pipe" });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (text: string) => (stdout += text));
    child.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text));
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 60_000);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    // A child that exits without reading stdin makes the write fail with EPIPE; that is not our error.
    child.stdin.on("error", () => {});
    child.stdin.end(options.input ?? "");
  });
}
