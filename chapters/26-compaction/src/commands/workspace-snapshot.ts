import { lstat } from "node:fs/promises";
import path from "node:path";
import { sha256 } from "../fs/file-hash.ts";
import { readRegularFile, type FileRead } from "../fs/read-regular-file.ts";
import { isSecretFile } from "../fs/secret-files.ts";
import { walkWorkspace } from "../tools/walk-workspace.ts";

/**
 * A command can write anywhere, and nothing it prints says where. So the harness hashes the
 * workspace before and after it and compares: the files the agent can see (list_files's walk:
 * .gitignore honoured, never .git/, node_modules/ or .agent/), plus .git/config and every file an
 * earlier snapshot of the run saw, each by SHA-256, the hash the guard compares.
 */

/** Each command reads every file twice (and backs it up once per run): these bound that cost. */
export const SNAPSHOT_LIMITS = {
  maxFiles: 5_000,
  maxTotalBytes: 50 * 1024 * 1024,
  maxFileBytes: 5 * 1024 * 1024,
};
export type SnapshotLimits = typeof SNAPSHOT_LIMITS;

export interface WorkspaceSnapshot {
  /** Workspace-relative path → SHA-256, for every file hashed. */
  hashes: Map<string, string>;
  /** Files seen but not hashed (over a cap, or unreadable): what a command does to them is unknown. */
  skipped: Set<string>;
  /** What went wrong on the way, one line each (an unreadable file, a walk that stopped). */
  problems: string[];
  /** The walk stopped early: a path this snapshot lacks may still be on disk. */
  incomplete: boolean;
}

/** Hashed though the walk skips .git/: a core.fsmonitor set there makes git run a program. */
export const ALWAYS_TRACKED = [".git/config"];

/** How a change is written in one letter, as `git status --short` does. */
export const CHANGE_LETTER = { created: "A", changed: "M", deleted: "D" } as const;

export interface FileChange {
  path: string;
  status: "created" | "changed" | "deleted";
  /** null when the file did not exist before (created). */
  before: string | null;
  /** null when the file no longer exists (deleted). */
  after: string | null;
}

/**
 * Hashes the visible files; `onFile` sees the exact bytes that were hashed (for backups). The
 * `tracked` paths (what earlier snapshots saw) come first, walk or no walk: a command cannot hide
 * its change to a file by ignoring its folder in .gitignore, or by 5,000 new files ahead of it in
 * the walk. Nothing here throws: a file that cannot be read is skipped, and the snapshot says so.
 */
export async function snapshotWorkspace(
  root: string,
  limits: SnapshotLimits = SNAPSHOT_LIMITS,
  onFile?: (relative: string, bytes: Buffer, mode: number) => Promise<void>,
  tracked: Iterable<string> = [],
): Promise<WorkspaceSnapshot> {
  const snapshot: WorkspaceSnapshot = {
    hashes: new Map(),
    skipped: new Set(),
    problems: [],
    incomplete: false,
  };
  let total = 0;
  const hashFile = async (relative: string, walked: boolean) => {
    // Never copied into .agent/backups (as an ordinary file, readable by all), never hashed:
    // what a command does to .env is not recorded, which the chapter says.
    if (isSecretFile(relative) || snapshot.hashes.has(relative) || snapshot.skipped.has(relative))
      return;
    // A path the walk did not list may now lie behind a link (ln -s ~/victim src): gone from here.
    if (!walked && !(await reachableWithoutLinks(root, relative))) return;
    if (snapshot.hashes.size >= limits.maxFiles) return void snapshot.skipped.add(relative);
    const room = Math.min(limits.maxFileBytes, limits.maxTotalBytes - total);
    let read: FileRead;
    try {
      read = await readRegularFile(path.join(root, relative), room);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR") return; // not there (any more)
      snapshot.problems.push(`${relative}: ${code ?? (error as Error).message}`);
      return void snapshot.skipped.add(relative);
    }
    // Swapped for a FIFO or a folder since the walk listed it: not a file, not tracked.
    if (!read.stats.isFile()) return;
    if (!read.bytes) return void snapshot.skipped.add(relative); // over a cap
    total += read.bytes.length;
    snapshot.hashes.set(relative, sha256(read.bytes));
    await onFile?.(relative, read.bytes, read.stats.mode & 0o777);
  };
  for (const relative of new Set([...ALWAYS_TRACKED, ...tracked])) await hashFile(relative, false);
  for await (const relative of walkOrStop(root, snapshot)) await hashFile(relative, true);
  return snapshot;
}

/** The walk's paths. A walk that fails ends here, and the snapshot says it is incomplete. */
async function* walkOrStop(root: string, snapshot: WorkspaceSnapshot): AsyncGenerator<string> {
  try {
    yield* walkWorkspace(root, ".");
  } catch (error) {
    snapshot.incomplete = true;
    snapshot.problems.push(`the walk stopped early (${(error as Error).message})`);
  }
}

/** Whether every part of `relative` is a real folder or file here, not a link to elsewhere. */
async function reachableWithoutLinks(root: string, relative: string): Promise<boolean> {
  let current = root;
  for (const part of relative.split("/")) {
    current = path.join(current, part);
    const stats = await lstat(current).catch(() => undefined);
    if (!stats || stats.isSymbolicLink()) return false;
  }
  return true;
}

/**
 * What changed between two snapshots, sorted by path. A path either snapshot skipped is left out:
 * "absent from a snapshot" must mean "not on disk", or a file pushed past the cap by a new one
 * would be reported as deleted (so is a path an incomplete snapshot lacks). When the command
 * changed a .gitignore, a path only the second snapshot has is left out too, and put in `leftOut`:
 * it may have been there all along, ignored before and not now (undo would delete the user's file).
 * A path only the first has is gone for sure: the second snapshot looked for every path the first
 * one hashed.
 */
export function compareSnapshots(
  before: WorkspaceSnapshot,
  after: WorkspaceSnapshot,
  leftOut: string[] = [],
): FileChange[] {
  const paths = new Set([...before.hashes.keys(), ...after.hashes.keys()]);
  const rulesChanged = [...paths].some(
    (file) => isIgnoreFile(file) && before.hashes.get(file) !== after.hashes.get(file),
  );
  const changes: FileChange[] = [];
  for (const file of paths) {
    if (before.skipped.has(file) || after.skipped.has(file)) continue;
    const old = before.hashes.get(file) ?? null;
    const now = after.hashes.get(file) ?? null;
    if (old === now) continue;
    if ((old === null && before.incomplete) || (now === null && after.incomplete)) continue;
    if (rulesChanged && old === null && !isIgnoreFile(file)) {
      leftOut.push(file);
      continue;
    }
    const status = old === null ? "created" : now === null ? "deleted" : "changed";
    changes.push({ path: file, status, before: old, after: now });
  }
  leftOut.sort();
  return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

function isIgnoreFile(file: string): boolean {
  return path.posix.basename(file) === ".gitignore";
}
