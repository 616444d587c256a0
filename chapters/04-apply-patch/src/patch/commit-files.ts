import { readFile } from "node:fs/promises";
import {
  commitWrite,
  deleteFile,
  discardWrite,
  stageWrite,
  type StagedWrite,
} from "./atomic-write.ts";
import { backUpFile, type BackupRecord } from "./backups.ts";
import { checkUnchanged, sha256 } from "./hash-guard.ts";
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
  } catch (error) {
    await Promise.all([...writes.values()].map(discardWrite));
    throw error;
  }

  const records: BackupRecord[] = [];
  for (const file of files) records.push(await backUp(file, backupDir));
  for (const file of files) {
    const staged = writes.get(file);
    if (staged !== undefined) await commitWrite(staged);
    else await deleteFile(file.target.absolute);
  }
  return records;
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
    sha256: file.text === null ? null : sha256(Buffer.from(file.text, "utf8")),
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
