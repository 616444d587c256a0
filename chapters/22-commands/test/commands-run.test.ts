import { existsSync } from "node:fs";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCommand, type CommandOutcome, type CommandRun } from "../src/commands/run-command.ts";
import { livingProcesses, uniqueSleep } from "./commands-processes.ts";

let cwd: string;
beforeEach(async () => {
  cwd = await realpath(await mkdtemp(join(tmpdir(), "run-command-")));
});
afterEach(async () => {
  await rm(cwd, { recursive: true, force: true });
});

function run(command: string, options: Partial<CommandRun> = {}): Promise<CommandOutcome> {
  return runCommand({
    command,
    cwd,
    timeoutMs: 10_000,
    signal: new AbortController().signal,
    env: { PATH: process.env.PATH },
    ...options,
  });
}

/** The command prints `$$` (the group leader) and `$!` (a background grandchild) first. */
function pids(outcome: CommandOutcome): { group: number; grandchild: number } {
  const [group, grandchild] = outcome.output.trim().split("\n").map(Number);
  return { group: group!, grandchild: grandchild! };
}

function survivors(group: number, grandchild: number): number[] {
  return livingProcesses()
    .filter((process) => process.pgid === group || process.pid === grandchild)
    .map((process) => process.pid);
}

describe("runCommand", () => {
  it("reports a failing command as an outcome, with stdout and stderr in arrival order", async () => {
    const outcome = await run("echo one; sleep 0.05; echo two >&2; sleep 0.05; echo three; exit 3");
    expect(outcome).toMatchObject({ exitCode: 3, signal: null, timedOut: false, aborted: false });
    expect(outcome.output).toBe("one\ntwo\nthree\n");
  });

  it("runs in the workspace root, and a missing program is exit 127, not an exception", async () => {
    expect((await run("pwd")).output).toBe(`${cwd}\n`);
    const outcome = await run("no-such-program-here");
    expect(outcome.exitCode).toBe(127);
    expect(outcome.output).toContain("no-such-program-here: command not found");
  });

  it("gives the command no stdin: a command that reads it ends instead of waiting", async () => {
    const outcome = await run("cat; echo done");
    expect(outcome).toMatchObject({ exitCode: 0, output: "done\n" });
  });

  it("on timeout, kills the whole process group, a background grandchild included", async () => {
    const sleep = uniqueSleep();
    const outcome = await run(`echo $$; ${sleep} & echo $!; ${sleep}; wait`, { timeoutMs: 300 });
    expect(outcome).toMatchObject({ timedOut: true, aborted: false, exitCode: null });
    expect(outcome.signal).toBe("SIGTERM");
    expect(outcome.durationMs).toBeLessThan(2_000);
    const { group, grandchild } = pids(outcome);
    expect(survivors(group, grandchild)).toEqual([]);
  });

  it("on Ctrl-C (the signal aborts), does the same and says it was aborted", async () => {
    const sleep = uniqueSleep();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const outcome = await run(`echo $$; ${sleep} & echo $!; ${sleep}; wait`, {
      signal: controller.signal,
    });
    expect(outcome).toMatchObject({ timedOut: false, aborted: true, exitCode: null });
    const { group, grandchild } = pids(outcome);
    expect(survivors(group, grandchild)).toEqual([]);
  });

  it("does not start a command whose signal was already aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    const outcome = await run("touch started", { signal: controller.signal });
    expect(outcome).toMatchObject({ aborted: true, exitCode: null, output: "" });
    expect(existsSync(join(cwd, "started"))).toBe(false);
  });

  it("sends SIGKILL to a group that ignores SIGTERM, after the grace period", async () => {
    const outcome = await run(`trap '' TERM; echo $$; ${uniqueSleep()}`, { timeoutMs: 200 });
    expect(outcome).toMatchObject({ timedOut: true, signal: "SIGKILL" });
    expect(outcome.durationMs).toBeGreaterThanOrEqual(2_000);
    expect(outcome.durationMs).toBeLessThan(4_000);
  });

  it("stops what the shell left running in the background when it exits", async () => {
    const sleep = uniqueSleep();
    const outcome = await run(`${sleep} & echo $!`);
    expect(outcome).toMatchObject({ exitCode: 0, timedOut: false });
    expect(outcome.durationMs).toBeLessThan(2_000);
    const grandchild = Number(outcome.output.trim());
    // Killed is not yet gone: the kernel may still be tearing it down (ps shows "[sleep]").
    await expect.poll(() => livingProcesses().filter((p) => p.pid === grandchild)).toEqual([]);
  });

  // Without a sandbox, a process that leaves the group (setsid) escapes the kill. It must not
  // keep the agent waiting on the output pipe it still holds.
  it.skipIf(process.platform !== "linux")(
    "comes back even when a process escaped the group with the pipes open",
    async () => {
      const outcome = await run(`setsid ${uniqueSleep()} & echo $!`);
      const escaped = Number(outcome.output.trim());
      try {
        expect(outcome.exitCode).toBe(0);
        expect(outcome.durationMs).toBeLessThan(4_000);
      } finally {
        process.kill(escaped, "SIGKILL");
      }
    },
  );

  it("throws only when the shell cannot start at all", async () => {
    await expect(run("true", { cwd: join(cwd, "missing") })).rejects.toThrow(
      `Could not start bash in ${join(cwd, "missing")}: spawn bash ENOENT`,
    );
  });
});
