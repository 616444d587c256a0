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
