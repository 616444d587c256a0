import { createHash } from "node:crypto";
import { open } from "node:fs/promises";
import {
  commitWrite,
  deleteFile,
  discardWrite,
  stageWrite,
  type StagedWrite,
} from "../fs/atomic-write.ts";
import { backUpFile, type BackupRecord } from "./backups.ts";
import { checkUnchanged } from "./hash-guard.ts";
import { PatchError } from "./patch-errors.ts";
import { StagingFailure, type StagedFile } from "./staged-files.ts";

/**
 * Puts staged files on disk as one unit: stage every new file beside its
 * target, check once more that nobody changed the originals since they were
 * read (the hash guard's second check), back the originals up and `record`
 * them for undo, then rename and delete. If the check fails, the temp files
 * vanish and nothing changed; if a rename or delete fails halfway, the files
 * already done are put back.
 */
export async function writeStagedFiles(
  files: StagedFile[],
  backupDir: string,
  record: (records: BackupRecord[]) => Promise<void>,
  beforeCommit?: () => Promise<void> | void,
): Promise<BackupRecord[]> {
  const writes = new Map<StagedFile, StagedWrite>();
  const records: BackupRecord[] = [];
  try {
    for (const file of files) {
      if (file.contents === null) continue;
      const bytes = file.contents.bytes();
      const staged = await stageWrite(file.target.absolute, bytes, file.mode).catch(
        (error: unknown) => {
          throw new StagingFailure(file.target.relative, error);
        },
      );
      writes.set(file, staged);
    }
    await beforeCommit?.();
    for (const file of files) {
      // Bytes equal to those read have the hash read; only a file that changed is hashed again.
      const same = await holdsBytes(file.target.absolute, file.diskBytes);
      const now = same ? file.diskHash : await currentHash(file.target.absolute);
      try {
        checkUnchanged(file.target.relative, file.diskHash, now);
      } catch (error) {
        throw new StagingFailure(file.target.relative, error);
      }
    }
    for (const file of files) records.push(await backUp(file, backupDir));
    // Recorded before the rename, so a crash right after it leaves a change undo knows about.
    await record(records);
  } catch (error) {
    await discardAll(writes);
    throw error;
  }
  await commitAll(files, writes);
  return records;
}

/**
 * Renames and deletes, in order. A group of files is one change (a move empties
 * one file and fills another), so when a step fails (a full disk, a folder made
 * read-only) the files before it get their old bytes back: written completely
 * or not at all.
 */
async function commitAll(files: StagedFile[], writes: Map<StagedFile, StagedWrite>): Promise<void> {
  for (const [i, file] of files.entries()) {
    const staged = writes.get(file);
    try {
      if (staged !== undefined) await commitWrite(staged);
      else await deleteFile(file.target.absolute);
    } catch (error) {
      // The failed step itself may have half happened (renamed, then the folder sync failed).
      const notRestored = await restoreOriginals(files.slice(0, i + 1));
      await discardAll(writes);
      const reported = notRestored.length === 0 ? error : undoFailed(file, error, notRestored);
      throw new StagingFailure(file.target.relative, reported);
    }
  }
}

/** Puts each file's old bytes back (or removes a file the patch created); returns those that failed. */
async function restoreOriginals(files: StagedFile[]): Promise<StagedFile[]> {
  const failed: StagedFile[] = [];
  for (const file of [...files].reverse()) {
    try {
      if ((await currentHash(file.target.absolute)) === file.diskHash) continue;
      // deleteFile goes through the checked folder (opened-folder.ts), as every write does.
      if (file.diskBytes === null) await deleteFile(file.target.absolute);
      else await writeBack(file.target.absolute, file.diskBytes, file.mode);
    } catch {
      failed.push(file);
    }
  }
  return failed;
}

async function writeBack(target: string, bytes: Buffer, mode: number | undefined): Promise<void> {
  const staged = await stageWrite(target, bytes, mode);
  try {
    await commitWrite(staged);
  } catch (error) {
    await discardWrite(staged);
    throw error;
  }
}

async function discardAll(writes: Map<StagedFile, StagedWrite>): Promise<void> {
  await Promise.all([...writes.values()].map(discardWrite));
}

/** The rare double failure: the result must still say which files hold what. */
function undoFailed(file: StagedFile, error: unknown, notRestored: StagedFile[]): PatchError {
  const reason = error instanceof Error ? error.message : String(error);
  const names = notRestored.map((f) => f.target.relative).join(", ");
  return new PatchError(
    "io_error",
    `Could not write ${file.target.relative}: ${reason}. Putting back the files already written ` +
      `failed too, so these may hold the patch's new bytes or be missing: ${names}.`,
    `Read ${names} to see what they hold now; their old bytes are in this run's backups ` +
      "(.agent/backups/). Restore them, fix the cause, then apply remaining_patch again.",
  );
}

async function backUp(file: StagedFile, backupDir: string): Promise<BackupRecord> {
  const backup =
    file.diskBytes === null
      ? null
      : await backUpFile(backupDir, file.target.relative, file.diskBytes);
  return {
    path: file.target.relative,
    previous_sha256: file.diskHash,
    backup,
    sha256: file.contents === null ? null : file.contents.sha256,
  };
}

/**
 * Whether the file holds exactly `bytes` now (for null: whether there is still no file). Compared
 * in chunks with the bytes read for the patch, which is several times cheaper than hashing them.
 */
async function holdsBytes(absolute: string, bytes: Buffer | null): Promise<boolean> {
  const handle = await open(absolute).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT" || error.code === "ENOTDIR") return null;
    throw error;
  });
  if (handle === null) return bytes === null;
  if (bytes === null) {
    await handle.close();
    return false;
  }
  try {
    const chunk = Buffer.allocUnsafe(1 << 20);
    let at = 0;
    for (let n; (n = (await handle.read(chunk, 0, chunk.length)).bytesRead) > 0; at += n) {
      if (at + n > bytes.length || !chunk.subarray(0, n).equals(bytes.subarray(at, at + n))) {
        return false;
      }
    }
    return at === bytes.length;
  } finally {
    await handle.close();
  }
}

/**
 * The hash of what is on disk now; null when there is no file. Read in chunks: the bytes read for
 * the patch are in memory already, and a second copy of a big file would double what it holds.
 */
export async function currentHash(absolute: string): Promise<string | null> {
  try {
    const handle = await open(absolute);
    try {
      const hash = createHash("sha256");
      const chunk = Buffer.allocUnsafe(1 << 20);
      for (let n; (n = (await handle.read(chunk, 0, chunk.length)).bytesRead) > 0;) {
        hash.update(chunk.subarray(0, n));
      }
      return hash.digest("hex");
    } finally {
      await handle.close();
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return null;
    throw error;
  }
}
