import { constants, existsSync } from "node:fs";
import { mkdir, open, readlink, realpath } from "node:fs/promises";
import type { FileHandle } from "node:fs/promises";
import path from "node:path";

/**
 * write-path.ts checks that no symlink leads a target out of the workspace,
 * but another process can swap a folder for a symlink right after that check.
 * So the writes go through the folder itself: it is opened, the real path of
 * what was opened is compared with the path that was checked, and every later
 * step reaches the folder through the open handle, not through its path.
 */
export interface OpenedFolder {
  handle: FileHandle;
  /** A path that reaches the opened folder, whatever happens to its own path. */
  path: string;
}

// Linux names each open file /proc/self/fd/<n>. Elsewhere the folder's own path is used, checked
// right after opening: that narrows the gap, but cannot close it.
const BY_HANDLE = existsSync("/proc/self/fd");

export async function openFolder(folder: string, via = folder): Promise<OpenedFolder> {
  const handle = await open(via, constants.O_RDONLY | constants.O_DIRECTORY);
  const opened = BY_HANDLE ? `/proc/self/fd/${handle.fd}` : folder;
  const real = await (BY_HANDLE ? readlink(opened) : realpath(folder)).catch(() => "?");
  if (real === folder) return { handle, path: opened };
  await handle.close();
  throw new Error(
    `Refusing to write into ${folder}: it now leads to ${real}, so a folder on the way was ` +
      "replaced by a link during the write. Nothing was written there.",
  );
}

/** Opens the folder; missing ones are made one at a time, each inside its opened parent. */
export async function makeFolder(
  folder: string,
): Promise<{ folder: OpenedFolder; createdFolder: string | undefined }> {
  const opened = await openFolder(folder).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "ENOENT") throw error;
  });
  if (opened !== undefined) return { folder: opened, createdFolder: undefined };
  const parent = await makeFolder(path.dirname(folder));
  try {
    await mkdir(inside(parent.folder, folder));
    const made = await openFolder(folder, inside(parent.folder, folder));
    return { folder: made, createdFolder: parent.createdFolder ?? folder };
  } finally {
    await parent.folder.handle.close();
  }
}

/** The file or folder `name` (a path whose last part is used) inside the opened folder. */
export function inside(folder: OpenedFolder, name: string): string {
  return path.join(folder.path, path.basename(name));
}
