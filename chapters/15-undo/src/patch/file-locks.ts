import { hostname } from "node:os";
import { link, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { sha256 } from "../fs/file-hash.ts";
import { isRunning } from "../fs/process-alive.ts";
import { sweepStaleTemps, tempName } from "../fs/temp-files.ts";
import { PatchError } from "./patch-errors.ts";

/**
 * The write leases (backups.ts) keep the patches of one process apart; a
 * second agent, `pnpm apply-patch` or an undo in another terminal knows
 * nothing of them. So each file about to be written also gets a lock file in
 * .agent/locks/, held from the read of the file to its rename. An editor
 * takes no lock: against it there is only the hash guard's second check.
 */
export const LOCK_WAIT_MS = 30_000;

/** Locks the files in sorted order (so two processes cannot wait for each other); returns the unlock. */
export async function lockFiles(
  folder: string,
  realPaths: string[],
  waitMs = LOCK_WAIT_MS,
): Promise<() => Promise<void>> {
  await mkdir(folder, { recursive: true });
  await sweepStaleTemps(folder);
  const held: string[] = [];
  const unlock = async () => {
    for (const lock of held.splice(0)) await rm(lock, { force: true });
  };
  try {
    for (const realPath of [...new Set(realPaths)].sort()) {
      held.push(await lockOne(folder, realPath, waitMs));
    }
    return unlock;
  } catch (error) {
    await unlock();
    throw error;
  }
}

// A lock is a file named after the path's hash, holding "pid host since", and `wx` creates it only
// if nobody holds it. The lock of a process that is gone (killed, crashed) is taken over; a live
// one is waited for, up to `waitMs`.
async function lockOne(folder: string, realPath: string, waitMs: number): Promise<string> {
  const lock = path.join(folder, `${sha256(realPath).slice(0, 32)}.lock`);
  const owner = `${process.pid} ${hostname()} ${new Date().toISOString()}`;
  const deadline = Date.now() + waitMs;
  for (let pause = 5; ; pause = Math.min(pause * 2, 200)) {
    const created = await writeFile(lock, owner, { flag: "wx" }).then(
      () => true,
      async (error: NodeJS.ErrnoException) => {
        if (error.code === "EEXIST") return false;
        // Created but not written (a full disk): an empty lock would never be let go.
        if (error.syscall !== "open") await rm(lock, { force: true });
        throw error;
      },
    );
    if (created) return lock;
    const holder = await readFile(lock, "utf8").catch(() => undefined);
    if (holder === undefined) continue; // let go meanwhile: try again at once
    if (isGone(holder)) await takeOver(lock, holder);
    else if (Date.now() > deadline) throw lockedError(realPath, lock, holder, waitMs);
    else await sleep(pause);
  }
}

/** Only a process on this machine can be asked whether it still runs. */
function isGone(holder: string): boolean {
  const [pid, host] = holder.split(" ");
  return host === hostname() && !isRunning(Number(pid));
}

// Two waiters may both find the lock dead, and the slower one would then remove the lock the faster
// one has just taken. So the lock is renamed aside and read again: if it is not the dead one any
// more, it is put back.
async function takeOver(lock: string, dead: string): Promise<void> {
  const aside = path.join(path.dirname(lock), tempName(lock));
  const moved = await rename(lock, aside).then(
    () => readFile(aside, "utf8"),
    () => dead,
  );
  if (moved !== dead) await link(aside, lock).catch(() => undefined);
  await rm(aside, { force: true });
}

function lockedError(realPath: string, lock: string, holder: string, waitMs: number): PatchError {
  const [pid, host, since] = holder.split(" ");
  const who = host === undefined ? "another process" : `process ${pid} on ${host} (since ${since})`;
  return new PatchError(
    "io_error",
    `${realPath} is being written by ${who}: its lock ${lock} was still held after ${waitMs / 1000} s.`,
    "Wait for that process to finish, then apply the patch again. If it is no longer running, delete the lock file.",
  );
}
