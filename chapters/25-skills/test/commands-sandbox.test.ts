// The sandbox is tested for real, by running commands in bubblewrap. Where it is missing or cannot
// create namespaces (some containers), the tests are skipped with a note saying how to get it,
// except in CI (CI=true), where they fail: CI installs bubblewrap and must never report a green
// run that did not try the sandbox. As root, every test runs twice: as root, whose power the
// sandbox must take away, and as an unprivileged user (nobody, through setpriv).
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { chown, mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { childEnv } from "../src/commands/child-env.ts";
import { runCommand, type CommandOutcome } from "../src/commands/run-command.ts";
import {
  bubblewrap,
  bubblewrapHiding,
  findSandbox,
  readOnlyPaths,
  type Sandbox,
} from "../src/commands/sandbox.ts";
import { livingProcesses, uniqueSleep } from "./commands-processes.ts";

const SANDBOX = await findSandbox();
const IN_CI = process.env.CI === "true";
const NO_SANDBOX =
  "bubblewrap (bwrap) is not installed, or cannot create namespaces here; to run these tests, `apt-get install bubblewrap` (Debian/Ubuntu) on a machine that allows unprivileged user namespaces";
if (SANDBOX === undefined && !IN_CI) console.warn(`sandbox tests skipped: ${NO_SANDBOX}`);

const IS_ROOT = process.getuid?.() === 0;
const NOBODY = 65534;
const HAS_SETPRIV = spawnSync("setpriv", ["--version"]).status === 0;
const NO_SETPRIV =
  "setpriv (util-linux) is missing, so the sandbox cannot be tried as an unprivileged user";
if (IS_ROOT && !HAS_SETPRIV && !IN_CI)
  console.warn(`sandbox tests as nobody skipped: ${NO_SETPRIV}`);
if (!IS_ROOT) console.warn("sandbox tests as root skipped: these tests do not run as root");

/** The same sandbox, entered as nobody: setpriv drops to uid 65534 and execs bwrap. */
function asNobody(sandbox: Sandbox): Sandbox {
  const drop = ["setpriv", `--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups"];
  return {
    name: sandbox.name,
    wrap: (argv, workspace) => [...drop, ...sandbox.wrap(argv, workspace)],
  };
}
const USERS = [
  { user: IS_ROOT ? "root" : "the current user", nobody: false },
  ...(IS_ROOT && (HAS_SETPRIV || IN_CI) ? [{ user: "nobody", nobody: true }] : []),
];

/**
 * Outside the workspace and outside /tmp (the sandbox has a /tmp of its own, so a path there
 * tells nothing), and writable by anyone out here: /var/tmp, whatever HOME is.
 */
const OUTSIDE = "/var/tmp";

// A process of the agent's side, holding a secret in its environment as the agent holds the key.
const SECRET = `sandbox-test-secret-${process.pid}-${Date.now()}`;
let agent: ReturnType<typeof spawn> | undefined;
beforeAll(() => {
  agent = spawn("sleep", ["600"], { env: { ...process.env, SANDBOX_TEST_SECRET: SECRET } });
});
afterAll(() => {
  agent?.kill("SIGKILL");
});

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

  it("take every capability away, even root's, in a user namespace of its own", () => {
    const wrapped = bubblewrap.wrap(["true"], workspace).join(" ");
    expect(wrapped).toContain("--unshare-user --cap-drop ALL --");
  });

  it("keep .git/ read-only, and hide the agent's .env wherever it is", async () => {
    expect(readOnlyPaths(workspace)).toEqual([]);
    await mkdir(join(workspace, ".git"));
    expect(readOnlyPaths(workspace)).toEqual([join(workspace, ".git")]);
    const dotenv = join(workspace, "elsewhere.env");
    expect(bubblewrapHiding(dotenv).wrap(["true"], workspace)).not.toContain(dotenv);
    await writeFile(dotenv, "OPENAI_API_KEY=sk-test\n");
    const wrapped = bubblewrapHiding(dotenv).wrap(["true"], workspace).join(" ");
    expect(wrapped).toContain(
      `--bind ${workspace} ${workspace} --ro-bind ${workspace}/.git ${workspace}/.git --ro-bind /dev/null ${dotenv} --chdir`,
    );
  });
});

describe.skipIf(SANDBOX === undefined && !IN_CI).each(USERS)(
  "a command in the sandbox, as $user",
  ({ nobody }) => {
    beforeEach(async () => {
      if (nobody) await chown(workspace, NOBODY, NOBODY);
    });

    function inSandbox(
      command: string,
      timeoutMs = 10_000,
      sandbox = SANDBOX,
    ): Promise<CommandOutcome> {
      if (SANDBOX === undefined) throw new Error(`CI must run the sandbox tests: ${NO_SANDBOX}`);
      if (nobody && !HAS_SETPRIV) throw new Error(`CI must run the sandbox tests: ${NO_SETPRIV}`);
      return runCommand({
        command,
        cwd: workspace,
        timeoutMs,
        signal: new AbortController().signal,
        env: childEnv(process.env, []),
        sandbox: nobody ? asNobody(sandbox!) : sandbox,
      });
    }

    it("has no network: only the loopback interface, and connecting out fails", async () => {
      const interfaces = await inSandbox("tail -n +3 /proc/net/dev | cut -d: -f1");
      expect(interfaces.output.trim().split(/\s+/)).toEqual(["lo"]);
      const connect = await inSandbox("exec 3<>/dev/tcp/1.1.1.1/53 && echo connected");
      expect(connect.exitCode).not.toBe(0);
      expect(connect.output).toContain("Network is unreachable");
    });

    it("reads nothing from the agent's .env, outside the workspace or inside it", async () => {
      const outside = join(OUTSIDE, `.sandbox-env-${process.pid}`);
      const inside = join(workspace, "agent-repo");
      try {
        for (const folder of [outside, inside]) {
          await mkdir(folder, { mode: 0o755 });
          const dotenv = join(folder, ".env");
          await writeFile(dotenv, `OPENAI_API_KEY=${SECRET}\n`, { mode: 0o644 });
          const hiding = bubblewrapHiding(dotenv);
          const read = await inSandbox(
            `cat '${dotenv}'; base64 '${dotenv}'; rev '${dotenv}'`,
            10_000,
            hiding,
          );
          // /dev/null, mounted without device access: reading it is refused.
          expect(read.output).not.toContain(SECRET);
          expect(read.output).not.toContain("OPENAI");
          expect(read.output.match(/Permission denied/g)).toHaveLength(3);
          // It is a mount: a command cannot replace it either.
          const write = await inSandbox(
            `echo OPENAI_BASE_URL=x > '${dotenv}'; rm -f '${dotenv}'`,
            10_000,
            hiding,
          );
          expect(write.exitCode).not.toBe(0);
          expect(await readFile(dotenv, "utf8")).toBe(`OPENAI_API_KEY=${SECRET}\n`);
        }
      } finally {
        await rm(outside, { recursive: true, force: true });
      }
    });

    it("can write in the workspace, and nowhere else", async () => {
      const outside = join(OUTSIDE, `.sandbox-test-${process.pid}`);
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

    it("cannot remount / writable, unmount its /proc or /tmp, or write outside after trying", async () => {
      const outside = join(OUTSIDE, `.sandbox-remount-${process.pid}`);
      try {
        const outcome = await inSandbox(
          `mount -o remount,rw / ; mount -o remount,rw,bind / ; umount -l /proc ; umount -l /tmp ; touch '${outside}' ; ls /proc`,
        );
        expect(existsSync(outside)).toBe(false);
        // Still its own /proc: the agent's process has no number in there.
        expect(outcome.output.split(/\s+/)).not.toContain(String(agent!.pid));
      } finally {
        await rm(outside, { force: true });
      }
    });

    it("cannot read the agent's environment, from its parent or anywhere in /proc", async () => {
      const outcome = await inSandbox(
        `umount -l /proc ; cat /proc/$PPID/environ /proc/1/environ /proc/${agent!.pid}/environ ; grep -l ${SECRET} /proc/*/environ`,
      );
      expect(outcome.output).not.toContain(SECRET);
    });

    it("cannot enter the machine's network through another process's namespace", async () => {
      const outcome = await inSandbox(
        `umount -l /proc ; for pid in 1 ${agent!.pid}; do nsenter --net=/proc/$pid/ns/net cat /proc/net/dev; done`,
      );
      // /proc/net/dev's lines: "  eth0: 1234 5 0 …", one per interface.
      const interfaces = [...outcome.output.matchAll(/^\s*([\w.-]+):\s+\d/gm)].map((m) => m[1]);
      expect(interfaces.filter((name) => name !== "lo")).toEqual([]);
    });

    it("cannot change .git/: its config names programs the next run's git would start", async () => {
      await mkdir(join(workspace, ".git"));
      await writeFile(join(workspace, ".git", "config"), "[core]\n");
      // nobody's own .git: only the sandbox, not a permission, may stop the write.
      for (const path of [".git", ".git/config"]) {
        if (nobody) await chown(join(workspace, path), NOBODY, NOBODY);
      }
      const outcome = await inSandbox(
        "echo '[core] fsmonitor = ./evil.sh' >> .git/config; mkdir .git/hooks; rm -rf .git",
      );
      expect(outcome.output).toContain("Read-only file system");
      expect(await readFile(join(workspace, ".git", "config"), "utf8")).toBe("[core]\n");
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
  },
);
