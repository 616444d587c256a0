import { readFile } from "node:fs/promises";
import { sha256 } from "../fs/file-hash.ts";
import {
  commitWrite,
  deleteFile,
  discardWrite,
  stageWrite,
  type StagedWrite,
} from "../fs/atomic-write.ts";
import { backUpFile, type BackupRecord } from "./backups.ts";
import { checkUnchanged } from "./hash-guard.ts";
import { StagingFailure, type StagedFile } from "./staged-files.ts";

/**
 * Puts staged files on disk as one unit: stage every new file beside its
 * target, check once more that nobody changed the originals since they were
 * read (the hash guard's second check), back the originals up, then rename
 * and delete. If the check fails, the temp files vanish and nothing changed.
 */
export async function writeStagedFiles(
  files: StagedFile[],
  backupDir: string,
  beforeCommit?: () => Promise<void> | void,
): Promise<BackupRecord[]> {
  const writes = new Map<StagedFile, StagedWrite>();
  const records: BackupRecord[] = [];
  try {
    for (const file of files) {
      if (file.text === null) continue;
      const bytes = Buffer.from(file.text, "utf8");
      const staged = await stageWrite(file.target.absolute, bytes, file.mode).catch(
        (error: unknown) => {
          throw new StagingFailure(file.target.relative, error);
        },
      );
      writes.set(file, staged);
    }
    await beforeCommit?.();
    for (const file of files) {
      const now = await currentHash(file.target.absolute);
      try {
        checkUnchanged(file.target.relative, file.diskHash, now);
      } catch (error) {
        throw new StagingFailure(file.target.relative, error);
      }
    }
    for (const file of files) records.push(await backUp(file, backupDir));
  } catch (error) {
    await discardAll(writes);
    throw error;
  }
  await commitAll(files, writes);
  return records;
}

/**
 * Renames and deletes, in order. The new bytes are already on disk, so this
 * rarely fails; when it does (a folder made read-only), the files done so far
 * stay written, the temp files not yet renamed are removed, and the error
 * ends the patch.
 */
async function commitAll(files: StagedFile[], writes: Map<StagedFile, StagedWrite>): Promise<void> {
  for (const file of files) {
    const staged = writes.get(file);
    try {
      if (staged !== undefined) await commitWrite(staged);
      else await deleteFile(file.target.absolute);
    } catch (error) {
      await discardAll(writes);
      throw new StagingFailure(file.target.relative, error);
    }
  }
}

async function discardAll(writes: Map<StagedFile, StagedWrite>): Promise<void> {
  await Promise.all([...writes.values()].map(discardWrite));
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
    sha256: file.text === null ? null : sha256(file.text),
  };
}

/** The hash of what is on disk now; null when there is no file. */
async function currentHash(absolute: string): Promise<string | null> {
  try {
    return sha256(await readFile(absolute));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return null;
    throw error;
  }
}
