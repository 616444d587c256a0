import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";

/**
 * Write leases: one writer per file at a time, within this process. Two patches
 * to the same file run one after the other, so the second one reads the first
 * one's result (and its hash guard notices if it was built on the old bytes).
 *
 * A patch takes the leases of all its files in one sorted order. If patch 1
 * held a.ts and waited for b.ts while patch 2 held b.ts and waited for a.ts,
 * both would wait forever; with one global order that cannot happen.
 */

/** The tail of each file's queue: the promise the next writer waits for. */
const queueTails = new Map<string, Promise<void>>();

/** Waits until every path is free, holds them all, and returns the function that frees them. */
export async function acquireWriteLeases(realPaths: Iterable<string>): Promise<() => void> {
  const ordered = [...new Set(realPaths)].sort();
  const releases: (() => void)[] = [];
  for (const realPath of ordered) releases.push(await acquireOne(realPath));
  return () => {
    for (const release of releases.reverse()) release();
  };
}

async function acquireOne(realPath: string): Promise<() => void> {
  const previous = queueTails.get(realPath) ?? Promise.resolve();
  let release!: () => void;
  const mine = new Promise<void>((resolve) => (release = resolve));
  const tail = previous.then(() => mine);
  queueTails.set(realPath, tail);
  await previous;
  return () => {
    release();
    // Forget the path once nobody queued behind us, so the map does not grow forever.
    if (queueTails.get(realPath) === tail) queueTails.delete(realPath);
  };
}

/**
 * Backups make a run undoable: before apply_patch modifies or deletes a file,
 * its old bytes go to <backupDir>/files/<relative path>, and manifest.json
 * records, per file, the hash before and after. Undo restores a file only if
 * its current hash is still `sha256` (nobody edited it since).
 */
export interface BackupRecord {
  /** Workspace-relative path. */
  path: string;
  /** Hash before the patch; null when the patch created the file (undo deletes it). */
  previous_sha256: string | null;
  /** Where the old bytes are, relative to the backup folder; null when there were none. */
  backup: string | null;
  /** Hash after the patch; null when the patch deleted the file. */
  sha256: string | null;
}

export interface BackupManifest {
  runId: string;
  patches: { appliedAt: string; files: BackupRecord[] }[];
}

export const MANIFEST_NAME = "manifest.json";

/**
 * Saves a file's old bytes. The first backup of a path in a run is kept: it
 * holds the bytes from before the run, which is what "undo the run" restores.
 */
export async function backUpFile(
  backupDir: string,
  relative: string,
  bytes: Uint8Array,
): Promise<string> {
  const backup = path.posix.join("files", relative);
  const target = path.join(backupDir, ...backup.split("/"));
  await mkdir(path.dirname(target), { recursive: true });
  await writeFile(target, bytes, { flag: "wx" }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "EEXIST") throw error;
  });
  return backup;
}

/** Appends one patch's records to the run's manifest. */
export async function recordInManifest(
  backupDir: string,
  runId: string,
  files: BackupRecord[],
): Promise<void> {
  const manifestPath = path.join(backupDir, MANIFEST_NAME);
  // Two patches of one run may finish at once: serialise the read-modify-write.
  const release = await acquireWriteLeases([manifestPath]);
  try {
    const manifest = await readManifest(manifestPath, runId);
    manifest.patches.push({ appliedAt: new Date().toISOString(), files });
    await mkdir(backupDir, { recursive: true });
    await writeFile(manifestPath, JSON.stringify(manifest, null, 2) + "\n");
  } finally {
    release();
  }
}

async function readManifest(manifestPath: string, runId: string): Promise<BackupManifest> {
  try {
    return JSON.parse(await readFile(manifestPath, "utf8")) as BackupManifest;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { runId, patches: [] };
    throw error;
  }
}
