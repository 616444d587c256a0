import { randomBytes } from "node:crypto";
import { lstat, readdir, rm } from "node:fs/promises";
import path from "node:path";
import { isRunning } from "./process-alive.ts";

// A process killed between staging a file and renaming it leaves its temp file behind. So temp
// files name their process, `.<file>.<pid>-<random>.agent-tmp`, and the first write of a process
// into a folder removes the leftovers there: our names only, files only, and only when their
// process is gone or they are an hour old (process ids are reused). A temp file that is still
// being written is never touched.
const TEMP_NAME = /^\..*\.(\d+)-[0-9a-f]{12}\.agent-tmp$/;
const AN_HOUR_MS = 60 * 60 * 1000;
const swept = new Set<string>();

export function tempName(target: string): string {
  return `.${path.basename(target)}.${process.pid}-${randomBytes(6).toString("hex")}.agent-tmp`;
}

/** `via` reaches the folder (opened-folder.ts); `folder` is its name, swept once per process. */
export async function sweepStaleTemps(folder: string, via = folder): Promise<void> {
  if (swept.has(folder)) return;
  swept.add(folder);
  for (const name of await readdir(via).catch(() => [])) {
    const pid = TEMP_NAME.exec(name)?.[1];
    const stats = pid && (await lstat(path.join(via, name)).catch(() => undefined));
    if (!stats || !stats.isFile()) continue;
    if (!isRunning(Number(pid)) || Date.now() - stats.mtimeMs > AN_HOUR_MS) {
      await rm(path.join(via, name), { force: true });
    }
  }
}
