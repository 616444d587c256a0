import { open, readdir, readFile, rm } from "node:fs/promises";
import path from "node:path";
import { commitWrite, stageWrite } from "../fs/atomic-write.ts";
import { inside, makeFolder } from "../fs/opened-folder.ts";
import { sweepStaleTemps } from "../fs/temp-files.ts";

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
  /** The file's permission bits before (chapter 23's commands record them): a deleted file's mode. */
  mode?: number;
}

export interface BackupManifest {
  runId: string;
  /** One entry per group of files written together (a whole patch with --atomic). */
  patches: ManifestGroup[];
}

// A command's backups go in before it runs, `unfinished`, for undo after a kill -9 mid-command;
// once the command is recorded, its real group replaces that one.
export interface ManifestGroup {
  appliedAt: string;
  files: BackupRecord[];
  unfinished?: string;
}

export const MANIFEST_NAME = "manifest.json";

/**
 * Saves a file's old bytes. The first backup of a path in a run is kept: it
 * holds the bytes from before the run, which is what "undo the run" restores.
 * So a backup that exists must be whole, and on disk before the rename it
 * backs up: it is flushed, and a half-written one (a full disk) is removed.
 */
export async function backUpFile(
  backupDir: string,
  relative: string,
  bytes: Uint8Array,
): Promise<string> {
  const backup = path.posix.join("files", relative);
  const target = path.join(backupDir, ...backup.split("/"));
  const { folder } = await makeFolder(path.dirname(target));
  try {
    const handle = await open(inside(folder, target), "wx").catch(
      (error: NodeJS.ErrnoException) => {
        if (error.code !== "EEXIST") throw error;
      },
    );
    if (handle === undefined) return backup;
    try {
      await handle.writeFile(bytes);
      await handle.sync();
    } catch (error) {
      await rm(inside(folder, target), { force: true });
      throw error;
    } finally {
      await handle.close();
    }
    await folder.handle.sync();
  } finally {
    await folder.handle.close();
  }
  return backup;
}

/** Appends the records of a group of files to the run's manifest, before the group is renamed. */
export async function recordInManifest(
  backupDir: string,
  runId: string,
  files: BackupRecord[],
  group: { unfinished?: string; replaces?: string } = {},
): Promise<void> {
  const manifestPath = path.join(backupDir, MANIFEST_NAME);
  // Two patches of one run may finish at once: serialise the read-modify-write.
  const release = await acquireWriteLeases([manifestPath]);
  try {
    // A run killed while writing its manifest left a temp file in its folder.
    const runs = path.dirname(backupDir);
    for (const run of await readdir(runs).catch(() => []))
      await sweepStaleTemps(path.join(runs, run));
    const manifest = await readManifest(manifestPath, runId);
    const { unfinished, replaces } = group;
    manifest.patches = manifest.patches.filter((old) => !replaces || old.unfinished !== replaces);
    if (files.length > 0 || unfinished) {
      manifest.patches.push({ appliedAt: new Date().toISOString(), files, unfinished });
    }
    // Replaced, never rewritten in place: a crash mid-write must not leave an empty manifest.
    const text = JSON.stringify(manifest, null, 2) + "\n";
    await commitWrite(await stageWrite(manifestPath, Buffer.from(text), undefined));
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
