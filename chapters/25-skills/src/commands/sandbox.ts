/**
 * A sandbox narrows what a command can reach, so an approved command that does more than it
 * said (a test that deletes ~/, a postinstall that phones home) is stopped by the kernel, not
 * by trust. On Linux that is bubblewrap (`bwrap`, Debian's `bubblewrap` package): the mount, PID
 * and network namespaces a container uses, for one command, without root. As root (Docker, CI) it
 * also runs the command in a user namespace with every capability dropped: root's power to
 * remount `/`, unmount the private /proc or enter another namespace would undo all the rest.
 *
 * What it does NOT protect against:
 * - reads: the whole filesystem stays readable but the agent's `.env`, so a command can read
 *   anything else the user can (~/.ssh, ~/.aws, a key in another file); with no network it cannot
 *   send it anywhere, but it can print it, and the output goes to the model;
 * - CPU, memory and disk: nothing is limited; the timeout is the only bound on a runaway;
 * - the workspace itself: it is writable, so a command can damage it; the ledger records what
 *   each command changed and undo restores it;
 * - Unix sockets: a socket file is reached by connect(), which neither read-only mounts nor
 *   --unshare-net stop. /run (Docker's socket, systemd's) is hidden below; a socket elsewhere,
 *   e.g. in /var/tmp, stays reachable;
 * - files the next run reads, when the workspace holds them: `.git/` is read-only below, but a
 *   workspace that contains this repository contains the agent's code.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DOTENV_FILE } from "../model/config.ts";

export interface Sandbox {
  /** Recorded in the ledger beside each command: "bubblewrap". */
  name: string;
  /** The argv that runs `argv` inside the sandbox, with `workspace` as its only writable folder. */
  wrap(argv: string[], workspace: string): string[];
}

export const bubblewrap = bubblewrapHiding(DOTENV_FILE);

/** bubblewrap, with `secret` (the agent's `.env`: the API key) unreadable inside. */
export function bubblewrapHiding(secret: string): Sandbox {
  return { name: "bubblewrap", wrap: (argv, workspace) => wrap(argv, workspace, secret) };
}

function wrap(argv: string[], workspace: string, secret: string): string[] {
  const protect = readOnlyPaths(workspace).flatMap((path) => ["--ro-bind", path, path]);
  // Redaction only catches exact copies; `base64 .env` is not one. Hidden wherever it is (over
  // the workspace's bind too) by /dev/null without device access: reading or writing it fails.
  const hide = existsSync(secret) ? ["--ro-bind", "/dev/null", secret] : [];
  return [
    "bwrap",
    // Order matters: each mount goes on top of the ones before it.
    ...["--ro-bind", "/", "/"],
    ...["--dev", "/dev"],
    ...["--proc", "/proc"],
    ...["--tmpfs", "/tmp"],
    // Where daemons put their sockets: /var/run/docker.sock is root for anyone who reaches it.
    ...["--tmpfs", "/run"],
    ...["--bind", workspace, workspace],
    ...protect,
    ...hide,
    ...["--chdir", workspace],
    // TMPDIR may name a folder outside /tmp, which is read-only here.
    ...["--setenv", "TMPDIR", "/tmp"],
    // Only a loopback interface: nothing leaves the machine, local test servers still work.
    "--unshare-net",
    // The command is PID 1's child in a namespace of its own: when bwrap dies, everything
    // inside dies with it, even a process that left the process group.
    "--unshare-pid",
    "--die-with-parent",
    // For a normal user both are what bwrap does anyway. Root keeps its uid (its files stay
    // writable) but no capability: it cannot mount, unmount, enter namespaces or trace.
    "--unshare-user",
    ...["--cap-drop", "ALL"],
    "--",
    ...argv,
  ];
}

/**
 * What stays read-only inside the writable workspace, of what exists. The ledger and the backups:
 * a command must not rewrite the record of what it did. `.git/`: its config names programs git
 * runs (core.fsmonitor, hooks). The next run reads both, outside the sandbox.
 */
export function readOnlyPaths(workspace: string): string[] {
  const paths = [join(workspace, ".agent"), join(workspace, ".git")];
  return paths.filter((path) => existsSync(path));
}

let found: Promise<Sandbox | undefined> | undefined;

/**
 * bubblewrap, if it is installed and works here. Installed is not enough: a container or a
 * hardened kernel can forbid the user namespaces it needs (or an old bwrap refuse an option),
 * so it is tried once, with the same options a command gets, and the answer is kept for the rest
 * of the process: no confinement that only half works.
 */
export async function findSandbox(): Promise<Sandbox | undefined> {
  found ??= works(bubblewrap).then((ok) => (ok ? bubblewrap : undefined));
  return found;
}

function works(sandbox: Sandbox): Promise<boolean> {
  const [program, ...args] = sandbox.wrap(["true"], tmpdir());
  return new Promise((resolve) => {
    const probe = spawn(program!, args, { stdio: "ignore", timeout: 5_000 });
    // Not installed: spawn fails with ENOENT.
    probe.on("error", () => resolve(false));
    probe.on("close", (code) => resolve(code === 0));
  });
}
