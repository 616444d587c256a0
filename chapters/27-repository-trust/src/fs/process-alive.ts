import { readFileSync } from "node:fs";

// Whether a process with this id runs on this machine: signal 0 checks without sending anything,
// and EPERM means it runs as another user. (0 and negative ids name process groups.) Ids are
// reused: "running" may be a newer process.
export function isRunning(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * When process `pid` started, in clock ticks since boot (Linux: field 22 of /proc/PID/stat);
 * undefined elsewhere, or when it does not run. A pid and its start time name one process: an id
 * reused by a newer process comes with a later start.
 */
export function processStartTime(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Field 2, the name, is in parentheses and may hold spaces: count from after its last ")".
    const start = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]);
    return Number.isSafeInteger(start) ? start : undefined;
  } catch {
    return undefined;
  }
}
