import { mkdir, unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import type { StagedFile } from "./staged-files.ts";

/**
 * Puts staged files on disk with plain writes and deletes. Every operation
 * succeeded in memory before this runs, so a bad hunk never gets here; a disk
 * error halfway can still leave some files written and others not.
 */
export async function writeStagedFiles(files: StagedFile[]): Promise<void> {
  for (const file of files) {
    if (file.text === null) {
      await unlink(file.target.absolute);
    } else {
      await mkdir(path.dirname(file.target.absolute), { recursive: true });
      await writeFile(file.target.absolute, file.text);
    }
  }
}
