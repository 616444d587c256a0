import path from "node:path";
import { sha256 } from "../fs/file-hash.ts";
import { readRegularFile } from "../fs/read-regular-file.ts";
import { isSecretFile } from "../fs/secret-files.ts";
import { walkWorkspace } from "../tools/walk-workspace.ts";

/**
 * A command can write anywhere, and nothing it prints says where. So the
 * harness hashes the workspace before and after it and compares: the files
 * the agent can see (list_files's walk: .gitignore honoured, never .git/,
 * node_modules/ or .agent/), each by SHA-256, the hash the guard compares.
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
}

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

/** Hashes the visible files; `onFile` sees the exact bytes that were hashed (for backups). */
export async function snapshotWorkspace(
  root: string,
  limits: SnapshotLimits = SNAPSHOT_LIMITS,
  onFile?: (relative: string, bytes: Buffer) => Promise<void>,
): Promise<WorkspaceSnapshot> {
  const snapshot: WorkspaceSnapshot = { hashes: new Map(), skipped: new Set() };
  let total = 0;
  for await (const relative of walkWorkspace(root, ".")) {
    // Never copied into .agent/backups (as an ordinary file, readable by all), never hashed:
    // what a command does to .env is not recorded, which the chapter says.
    if (isSecretFile(relative)) continue;
    const room = Math.min(limits.maxFileBytes, limits.maxTotalBytes - total);
    const read =
      snapshot.hashes.size < limits.maxFiles
        ? await readRegularFile(path.join(root, relative), room).catch(() => undefined)
        : undefined;
    // Swapped for a FIFO or a folder since the walk listed it: not a file, not tracked.
    if (read !== undefined && !read.stats.isFile()) continue;
    if (!read?.bytes) {
      snapshot.skipped.add(relative);
      continue;
    }
    total += read.bytes.length;
    snapshot.hashes.set(relative, sha256(read.bytes));
    await onFile?.(relative, read.bytes);
  }
  return snapshot;
}

/**
 * What changed between two snapshots, sorted by path. A path either snapshot
 * skipped is left out: "absent from a snapshot" must mean "not on disk", or a
 * file pushed past the cap by a new one would be reported as deleted. For the
 * same reason, when the command changed a .gitignore, a path only one snapshot
 * has is left out too: it may have been there all along, ignored before and
 * not now (undo would delete the user's file), or the other way round.
 */
export function compareSnapshots(
  before: WorkspaceSnapshot,
  after: WorkspaceSnapshot,
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
    if (rulesChanged && (old === null || now === null) && !isIgnoreFile(file)) continue;
    const status = old === null ? "created" : now === null ? "deleted" : "changed";
    changes.push({ path: file, status, before: old, after: now });
  }
  return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

function isIgnoreFile(file: string): boolean {
  return path.posix.basename(file) === ".gitignore";
}
