import { open, rename, rmdir, rm, unlink, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { inside, makeFolder, openFolder, type OpenedFolder } from "./opened-folder.ts";
import { sweepStaleTemps, tempName } from "./temp-files.ts";

/**
 * Atomic writes in two steps. `stageWrite` puts the new bytes, flushed to disk,
 * in a temp file beside the target; `commitWrite` renames it over the target.
 * A rename within one folder is atomic, so a crash leaves the old bytes or the
 * new bytes, never half a file. Between the two steps the caller re-checks the
 * hash guard, and can still back out with `discardWrite`.
 */
export interface StagedWrite {
  target: string;
  temp: string;
  /** The first folder mkdir created for this write, to remove again if we back out. */
  createdFolder: string | undefined;
  /** The target's folder, opened and checked (opened-folder.ts), until commit or discard. */
  folder: OpenedFolder;
}

export async function stageWrite(
  target: string,
  bytes: Uint8Array | readonly Uint8Array[],
  mode: number | undefined,
): Promise<StagedWrite> {
  const folder = path.dirname(target);
  const { folder: opened, createdFolder } = await makeFolder(folder);
  await sweepStaleTemps(folder, opened.path);
  // Same folder as the target: rename across file systems is not atomic.
  const temp = path.join(folder, tempName(target));
  const staged = { target, temp, createdFolder, folder: opened };
  const handle = await open(inside(opened, temp), "wx").catch(async (error: unknown) => {
    await discardWrite(staged);
    throw error;
  });
  try {
    await writeAll(handle, bytes);
    // chmod after creation: the mode given to open() is masked by the umask.
    if (mode !== undefined) await handle.chmod(mode);
    await handle.sync();
  } catch (error) {
    // A full disk leaves part of the temp file behind: remove it, and any folder made for it.
    await handle.close();
    await discardWrite(staged);
    throw error;
  }
  await handle.close();
  return staged;
}

/**
 * The bytes may come in pieces (file-contents.ts), written with one writev call. libuv writes
 * every piece unless a write fails part way; writing the rest then fails with the reason
 * (a full disk), or finishes the file if the reason has passed.
 */
async function writeAll(handle: FileHandle, bytes: Uint8Array | readonly Uint8Array[]) {
  if (bytes instanceof Uint8Array) return handle.writeFile(bytes);
  const { bytesWritten } = await handle.writev([...bytes]);
  const total = bytes.reduce((sum, piece) => sum + piece.length, 0);
  if (bytesWritten < total) await handle.writeFile(Buffer.concat(bytes).subarray(bytesWritten));
}

export async function commitWrite(staged: StagedWrite): Promise<void> {
  const target = inside(staged.folder, staged.target);
  await rename(inside(staged.folder, staged.temp), target).catch(async (error: unknown) => {
    await discardWrite(staged); // a failed rename must not leave the temp file behind
    throw error;
  });
  await staged.folder.handle.sync();
  await staged.folder.handle.close();
}

/** Backs out of a staged write: the temp file and any folder created for it disappear. */
export async function discardWrite(staged: StagedWrite): Promise<void> {
  // A closed handle's fd is -1: the write was committed, and the temp name is gone.
  if (staged.folder.handle.fd !== -1) await rm(inside(staged.folder, staged.temp), { force: true });
  await staged.folder.handle.close();
  if (staged.createdFolder === undefined) return;
  // Remove the folders we created, innermost first; rmdir refuses any that someone else filled.
  let folder = path.dirname(staged.target);
  for (;;) {
    const removed = await rmdir(folder).then(
      () => true,
      () => false,
    );
    if (!removed || folder === staged.createdFolder) return;
    folder = path.dirname(folder);
  }
}

/** Deletes a file and makes the deletion durable. */
export async function deleteFile(target: string): Promise<void> {
  const folder = await openFolder(path.dirname(target));
  try {
    await unlink(inside(folder, target));
    await folder.handle.sync();
  } finally {
    await folder.handle.close();
  }
}

/** A rename or unlink is only durable once the folder's own entry list is flushed. */
export async function syncFolder(folder: string): Promise<void> {
  const handle = await open(folder, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
