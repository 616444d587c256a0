import { execFileSync } from "node:child_process";

export interface LivingProcess {
  pid: number;
  pgid: number;
  args: string;
}

/**
 * The processes still running on this machine, from `ps` (Linux and macOS). Zombies are left
 * out: they have exited, and a container's PID 1 may take its time to reap them.
 */
export function livingProcesses(): LivingProcess[] {
  const table = execFileSync("ps", ["-A", "-o", "pid=,pgid=,stat=,args="], { encoding: "utf8" });
  return table.split("\n").flatMap((line) => {
    const match = /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line);
    if (match === null || match[3]!.startsWith("Z")) return [];
    return [{ pid: Number(match[1]), pgid: Number(match[2]), args: match[4]! }];
  });
}

/** A sleep only this test starts, so `ps` can tell it apart: `sleep 30.<random digits>`. */
export function uniqueSleep(): string {
  return `sleep 30.${Math.floor(Math.random() * 1e9)}`;
}
