import { closeSync, fstatSync, lstatSync, openSync, readFileSync, type Stats } from "node:fs";
import { lstat } from "node:fs/promises";
import path from "node:path";
import { sha256 } from "../fs/file-hash.ts";
import { OPEN_FLAGS } from "../fs/read-regular-file.ts";
import { isSecretFile } from "../fs/secret-files.ts";
import { walkWorkspace } from "../tools/walk-workspace.ts";

// A command can write anywhere, and nothing it prints says where. So the harness hashes the
// workspace before and after it and compares: the files the agent can see (list_files's walk:
// .gitignore honoured, never .git/, node_modules/ or .agent/), plus .git/config and every file an
// earlier snapshot of the run saw, each by SHA-256, the hash the guard compares. A snapshot holds
// the files' bytes too: they are the backups of what the command changes.
export const SNAPSHOT_LIMITS = { maxFiles: 50_000, maxTotalBytes: 50 << 20, maxFileBytes: 5 << 20 };

/** A file as read: its stamp (from its stat) tells the next snapshot it is unchanged. */
export type SnapshotFile = { hash: string; bytes: Buffer; mode: number; stamp: Stamp };

export interface WorkspaceSnapshot {
  /** Workspace-relative path → what was read, for every file hashed. */
  files: Map<string, SnapshotFile>;
  /** Every path the run's snapshots hashed so far: the next one looks for them all. */
  seen: Set<string>;
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
  before: string | null; // null when the file did not exist before (created)
  after: string | null; // null when the file no longer exists (deleted)
}

// Hashes the visible files, those earlier snapshots saw first, walk or no walk: a command cannot
// hide its change by ignoring a folder in .gitignore, or by 50,000 new files ahead in the walk. A
// file `previous` read is not read again while its stat is the same. Nothing here throws.
export async function snapshotWorkspace(
  root: string,
  limits = SNAPSHOT_LIMITS,
  previous?: WorkspaceSnapshot,
): Promise<WorkspaceSnapshot> {
  const files = new Map<string, SnapshotFile>();
  const [seen, skipped] = [new Set(previous?.seen), new Set<string>()];
  const snapshot: WorkspaceSnapshot = { files, seen, skipped, problems: [], incomplete: false };
  const walked = new Set<string>();
  try {
    for await (const relative of walkWorkspace(root, ".")) walked.add(relative);
  } catch (error) {
    snapshot.incomplete = true;
    snapshot.problems.push(`the walk stopped early (${(error as Error).message})`);
  }
  let total = 0;
  for (const relative of new Set([...ALWAYS_TRACKED, ...seen, ...walked])) {
    // Never copied into .agent/backups (as an ordinary file, readable by all), never hashed:
    // what a command does to .env is not recorded, which the chapter says. (A cached path passed.)
    const cached = previous?.files.get(relative);
    if (!cached && isSecretFile(relative)) continue;
    // A path the walk did not list may now lie behind a link (ln -s ~/victim src): gone from here.
    if (!walked.has(relative) && (await linkOnTheWay(root, relative))) continue;
    const room = Math.min(limits.maxFileBytes, limits.maxTotalBytes - total);
    let file: SnapshotFile | "skip" | undefined = "skip"; // unless read: past the file cap
    try {
      if (files.size < limits.maxFiles) file = readTracked(`${root}/${relative}`, room, cached);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR") continue; // not there (any more)
      snapshot.problems.push(`${relative}: ${code ?? (error as Error).message}`);
    }
    if (file === "skip") skipped.add(relative);
    if (file === undefined || file === "skip") continue; // a FIFO, a folder, a link: not a file
    total += file.bytes.length;
    files.set(relative, file);
    seen.add(relative);
  }
  return snapshot;
}

// The stat cache, as git's index keeps: a file with the stat it had when read has the same bytes.
// A command can set the mtime back (touch -d), never the ctime. A clock tick is coarse (2 s on
// FAT), so a file changed SETTLE_MS before its read or later is read again (git's "racy clean").
// Only these numbers are kept, not the Stats: 20,000 of those are work for the garbage collector.
const SETTLE_MS = 3_000;
const STAMP = ["dev", "ino", "size", "mode", "mtimeMs", "ctimeMs"] as const;
type Stamp = Pick<Stats, (typeof STAMP)[number]> & { readAt: number };
// prettier-ignore
const stampOf = ({ dev, ino, size, mode, mtimeMs, ctimeMs }: Stats, readAt: number): Stamp =>
  ({ dev, ino, size, mode, mtimeMs, ctimeMs, readAt });
const unchanged = (was: Stamp, now: Stats) =>
  Math.max(now.mtimeMs, now.ctimeMs) < was.readAt - SETTLE_MS &&
  STAMP.every((key) => was[key] === now[key]);

// A regular file (else undefined), checked as readRegularFile does but synchronously: for a small
// file a FileHandle's trips through the thread pool cost 15 times the read. A cached file is
// lstat'ed; any other is opened with O_NONBLOCK (a FIFO cannot block it) and fstat'ed.
function readTracked(absolute: string, room: number, cached?: SnapshotFile) {
  const [readAt, now] = [Date.now(), cached && lstatSync(absolute)];
  if (now && !now.isFile()) return undefined;
  if (now && unchanged(cached!.stamp, now) && cached!.bytes.length <= room) return cached;
  const fd = openSync(absolute, OPEN_FLAGS);
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) return undefined;
    if (stats.size > room) return "skip"; // over a cap
    const bytes = readFileSync(fd);
    return { hash: sha256(bytes), bytes, mode: stats.mode & 0o777, stamp: stampOf(stats, readAt) };
  } finally {
    closeSync(fd);
  }
}

/** The first part of `relative` that is a link, if any (a missing part ends the check: no link). */
export async function linkOnTheWay(root: string, relative: string): Promise<string | undefined> {
  let part = "";
  for (const name of relative.split("/")) {
    part = part ? `${part}/${name}` : name;
    const stats = await lstat(path.join(root, part)).catch(() => undefined);
    if (!stats || stats.isSymbolicLink()) return stats && part;
  }
}

// What changed between two snapshots, sorted by path. A path either snapshot skipped is left out:
// "absent from a snapshot" must mean "not on disk", or a file pushed past the cap by a new one
// would be reported as deleted (so is a path an incomplete snapshot lacks). When the command
// changed a .gitignore, a path only the second snapshot has is left out too, and put in `leftOut`:
// it may have been there all along, ignored before and not now (undo would delete the user's file).
// A path only the first has is gone: the second snapshot looked for every path the first hashed.
export function compareSnapshots(
  before: WorkspaceSnapshot,
  after: WorkspaceSnapshot,
  leftOut: string[] = [],
): FileChange[] {
  const hash = (of: WorkspaceSnapshot, file: string) => of.files.get(file)?.hash ?? null;
  const paths = new Set([...before.files.keys(), ...after.files.keys()]);
  const isIgnoreFile = (file: string) => path.posix.basename(file) === ".gitignore";
  const rulesChanged = [...paths].some(
    (f) => isIgnoreFile(f) && hash(before, f) !== hash(after, f),
  );
  const changes: FileChange[] = [];
  for (const file of paths) {
    if (before.skipped.has(file) || after.skipped.has(file)) continue;
    const [old, now] = [hash(before, file), hash(after, file)];
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
