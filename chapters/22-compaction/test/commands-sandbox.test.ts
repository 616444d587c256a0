// The sandbox is tested for real, by running commands in bubblewrap. Where it is missing or cannot
// create namespaces (some containers), the tests are skipped with a note saying how to get it,
// except in CI (CI=true), where they fail: CI installs bubblewrap and must never report a green
// run that did not try the sandbox.
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { childEnv } from "../src/commands/child-env.ts";
import { runCommand, type CommandOutcome } from "../src/commands/run-command.ts";
import { bubblewrap, findSandbox } from "../src/commands/sandbox.ts";
import { livingProcesses, uniqueSleep } from "./commands-processes.ts";

const SANDBOX = await findSandbox();
const IN_CI = process.env.CI === "true";
const NO_SANDBOX =
  "bubblewrap (bwrap) is not installed, or cannot create namespaces here; to run these tests, `apt-get install bubblewrap` (Debian/Ubuntu) on a machine that allows unprivileged user namespaces";
if (SANDBOX === undefined && !IN_CI) console.warn(`sandbox tests skipped: ${NO_SANDBOX}`);

let workspace: string;
beforeEach(async () => {
  workspace = await realpath(await mkdtemp(join(tmpdir(), "sandbox-")));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

describe("bubblewrap's options", () => {
  it("make the workspace the only writable folder, and .agent/ read-only when it exists", async () => {
    const without = bubblewrap.wrap(["bash", "-c", "x"], workspace);
    expect(without).not.toContain(join(workspace, ".agent"));
    await mkdir(join(workspace, ".agent"));
    const wrapped = bubblewrap.wrap(["bash", "-c", "x"], workspace).join(" ");
    expect(wrapped).toContain(`--bind ${workspace} ${workspace}`);
    expect(wrapped).toContain(`--ro-bind ${workspace}/.agent ${workspace}/.agent`);
    expect(wrapped).toMatch(
      /^bwrap --ro-bind \/ \/ .* --unshare-net --unshare-pid .*-- bash -c x$/,
    );
  });
});

describe.skipIf(SANDBOX === undefined && !IN_CI)("a command in the sandbox", () => {
  function inSandbox(command: string, timeoutMs = 10_000): Promise<CommandOutcome> {
    if (SANDBOX === undefined) throw new Error(`CI must run the sandbox tests: ${NO_SANDBOX}`);
    return runCommand({
      command,
      cwd: workspace,
      timeoutMs,
      signal: new AbortController().signal,
      env: childEnv(process.env, []),
      sandbox: SANDBOX,
    });
  }

  it("has no network: only the loopback interface, and connecting out fails", async () => {
    const interfaces = await inSandbox("tail -n +3 /proc/net/dev | cut -d: -f1");
    expect(interfaces.output.trim().split(/\s+/)).toEqual(["lo"]);
    const connect = await inSandbox("exec 3<>/dev/tcp/1.1.1.1/53 && echo connected");
    expect(connect.exitCode).not.toBe(0);
    expect(connect.output).toContain("Network is unreachable");
  });

  it("can write in the workspace, and nowhere else", async () => {
    const outside = join(homedir(), `.sandbox-test-${process.pid}`);
    try {
      const outcome = await inSandbox(`echo made > made.txt; touch '${outside}'`);
      expect(outcome.exitCode).not.toBe(0);
      expect(outcome.output).toContain("Read-only file system");
      expect(await readFile(join(workspace, "made.txt"), "utf8")).toBe("made\n");
      expect(existsSync(outside)).toBe(false);
    } finally {
      await rm(outside, { force: true });
    }
  });

  it("has a /tmp of its own: it neither sees nor leaves files in the real one", async () => {
    const name = `sandbox-test-${process.pid}-${Date.now()}`;
    await writeFile(join(tmpdir(), `${name}-outside`), "");
    try {
      const outcome = await inSandbox(`ls /tmp; echo inside > /tmp/${name}-inside`);
      expect(outcome.exitCode).toBe(0);
      expect(outcome.output).not.toContain(`${name}-outside`);
      expect(existsSync(join(tmpdir(), `${name}-inside`))).toBe(false);
    } finally {
      await rm(join(tmpdir(), `${name}-outside`), { force: true });
      await rm(join(tmpdir(), `${name}-inside`), { force: true });
    }
  });

  it("cannot rewrite or remove .agent/, the ledger and backups", async () => {
    await mkdir(join(workspace, ".agent", "runs"), { recursive: true });
    await writeFile(join(workspace, ".agent", "runs", "run.jsonl"), "{}\n");
    const outcome = await inSandbox(
      "echo forged >> .agent/runs/run.jsonl; rm -rf .agent; touch .agent/new",
    );
    expect(outcome.output).toContain("Read-only file system");
    expect(await readFile(join(workspace, ".agent", "runs", "run.jsonl"), "utf8")).toBe("{}\n");
    expect(existsSync(join(workspace, ".agent", "new"))).toBe(false);
  });

  it("on timeout, leaves nothing running, not even a process that left the group", async () => {
    const sleep = uniqueSleep();
    const outcome = await inSandbox(`setsid ${sleep} & ${sleep}`, 300);
    expect(outcome.timedOut).toBe(true);
    expect(outcome.durationMs).toBeLessThan(2_000);
    expect(livingProcesses().filter((process) => process.args.includes(sleep))).toEqual([]);
  });
});
