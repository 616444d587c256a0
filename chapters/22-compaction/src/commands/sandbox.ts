/**
 * A sandbox narrows what a command can reach, so an approved command that does more than it
 * said (a test that deletes ~/, a postinstall that phones home) is stopped by the kernel, not
 * by trust. On Linux that is bubblewrap (`bwrap`, Debian's `bubblewrap` package): the mount, PID
 * and network namespaces a container uses, for one command, without root.
 *
 * What it does NOT protect against:
 * - reads: the whole filesystem stays readable, so a command can read anything the user can
 *   (~/.ssh, ~/.aws); with no network it cannot send it anywhere, but it can print it, and the
 *   output goes to the model;
 * - CPU, memory and disk: nothing is limited; the timeout is the only bound on a runaway;
 * - the workspace itself: it is writable, so a command can damage it; the ledger records what
 *   each command changed and undo restores it;
 * - Unix sockets: a socket file is reached by connect(), which neither read-only mounts nor
 *   --unshare-net stop. /run (Docker's socket, systemd's) is hidden below; a socket elsewhere,
 *   e.g. in /var/tmp, stays reachable.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface Sandbox {
  /** Recorded in the ledger beside each command: "bubblewrap". */
  name: string;
  /** The argv that runs `argv` inside the sandbox, with `workspace` as its only writable folder. */
  wrap(argv: string[], workspace: string): string[];
}

export const bubblewrap: Sandbox = {
  name: "bubblewrap",
  wrap(argv, workspace) {
    // The ledger and the backups: a command must not rewrite the record of what it did.
    const agentFolder = join(workspace, ".agent");
    const protectAgentFolder = existsSync(agentFolder)
      ? ["--ro-bind", agentFolder, agentFolder]
      : [];
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
      ...protectAgentFolder,
      ...["--chdir", workspace],
      // TMPDIR may name a folder outside /tmp, which is read-only here.
      ...["--setenv", "TMPDIR", "/tmp"],
      // Only a loopback interface: nothing leaves the machine, local test servers still work.
      "--unshare-net",
      // The command is PID 1's child in a namespace of its own: when bwrap dies, everything
      // inside dies with it, even a process that left the process group.
      "--unshare-pid",
      "--die-with-parent",
      "--",
      ...argv,
    ];
  },
};

let found: Promise<Sandbox | undefined> | undefined;

/**
 * bubblewrap, if it is installed and works here. Installed is not enough: a container or a
 * hardened kernel can forbid the user namespaces it needs, so it is tried once, with the same
 * options a command gets, and the answer is kept for the rest of the process.
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
