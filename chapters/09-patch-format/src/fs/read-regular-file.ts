import { constants, type Stats } from "node:fs";
import { open, stat } from "node:fs/promises";

/**
 * Tools read regular files only. A workspace can also hold a named pipe
 * (FIFO), whose reader waits until someone writes, or a device such as
 * /dev/zero, which never ends: reading either hangs the agent or fills its
 * memory. So the file is opened with O_NONBLOCK, which keeps the open itself
 * from waiting for a FIFO's writer, and checked with fstat on the opened
 * descriptor: the file checked is the file read, even if the path is swapped.
 */
export interface FileRead {
  stats: Stats;
  /** The bytes; null when it is not a regular file or is over maxBytes (stats tell which). */
  bytes: Buffer | null;
}

// Windows has no O_NONBLOCK, and no FIFOs in the file system either.
export const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

export async function readRegularFile(absolute: string, maxBytes = Infinity): Promise<FileRead> {
  const handle = await open(absolute, OPEN_FLAGS).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "EISDIR") return undefined; // Windows will not open a folder
    throw error;
  });
  if (handle === undefined) return { stats: await stat(absolute), bytes: null };
  try {
    const stats = await handle.stat();
    if (!stats.isFile() || stats.size > maxBytes) return { stats, bytes: null };
    return { stats, bytes: await handle.readFile() };
  } finally {
    await handle.close();
  }
}

/** What a path that is not a regular file is, for messages: "a named pipe (FIFO)". */
export function describeFileType(stats: Stats): string {
  if (stats.isDirectory()) return "a directory";
  if (stats.isFIFO()) return "a named pipe (FIFO)";
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return "a device";
  if (stats.isSocket()) return "a socket";
  return stats.isFile() ? "a regular file" : "a special file";
}
