import { randomBytes } from "node:crypto";
import { mkdir, open, rename, rmdir, rm, unlink } from "node:fs/promises";
import path from "node:path";

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
}

export async function stageWrite(
  target: string,
  bytes: Uint8Array,
  mode: number | undefined,
): Promise<StagedWrite> {
  const folder = path.dirname(target);
  const createdFolder = await mkdir(folder, { recursive: true });
  // Same folder as the target: rename across file systems is not atomic.
  const temp = path.join(folder, `.${path.basename(target)}.${randomBytes(6).toString("hex")}.tmp`);
  const handle = await open(temp, "wx");
  try {
    await handle.writeFile(bytes);
    // chmod after creation: the mode given to open() is masked by the umask.
    if (mode !== undefined) await handle.chmod(mode);
    await handle.sync();
  } finally {
    await handle.close();
  }
  return { target, temp, createdFolder };
}

export async function commitWrite(staged: StagedWrite): Promise<void> {
  await rename(staged.temp, staged.target);
  await syncFolder(path.dirname(staged.target));
}

/** Backs out of a staged write: the temp file and any folder created for it disappear. */
export async function discardWrite(staged: StagedWrite): Promise<void> {
  await rm(staged.temp, { force: true });
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
  await unlink(target);
  await syncFolder(path.dirname(target));
}

/** A rename or unlink is only durable once the folder's own entry list is flushed. */
async function syncFolder(folder: string): Promise<void> {
  const handle = await open(folder, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
