// Attacks on the sandbox and on what the next run reads (issue 21, items 1-3):
// - a command as root tries to leave bubblewrap: remount / writable, unmount its /proc to read
//   the agent's environment, enter the machine's network namespace;
// - a hostile .git/config (core.fsmonitor, a hooks folder, a filter on every file) waits for the
//   git status the next start runs for its prompt, even with --commands deny;
// - a command writes a .env that points OPENAI_BASE_URL at a listener of its own, and the agent
//   is started again from that folder with the key in the environment.
// Each attack must fail: nothing escapes, nothing runs, the key reaches no one.
//
// The attacked chapter is the newest, or ATTACK_CHAPTER_DIR (a copy of an older commit, to
// measure "before"). Tests that need bubblewrap skip outside CI when it does not work here.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, rm, utimes, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { importChapter, mainBundle, report, scratch, SCALE, timeLimit } from "./attack-kit.ts";

const IN_CI = process.env.CI === "true";
const KEY = "sk-attack-test-not-a-real-key-0000";

interface SandboxModule {
  findSandbox(): Promise<{ name: string; wrap(argv: string[], cwd: string): string[] } | undefined>;
}
interface RunCommandModule {
  runCommand(run: {
    command: string;
    cwd: string;
    timeoutMs: number;
    signal: AbortSignal;
    env: NodeJS.ProcessEnv;
    sandbox?: unknown;
  }): Promise<{ exitCode: number | null; output: string }>;
}
const { findSandbox } = await importChapter<SandboxModule>("src/commands/sandbox.ts");
const { runCommand } = await importChapter<RunCommandModule>("src/commands/run-command.ts");
const SANDBOX = await findSandbox();
if (SANDBOX === undefined && !IN_CI) {
  console.warn(
    "sandbox attacks skipped: bubblewrap does not work here (apt-get install bubblewrap)",
  );
}

function command(text: string, cwd: string): Promise<{ exitCode: number | null; output: string }> {
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, LANG: process.env.LANG };
  return runCommand({
    command: text,
    cwd,
    timeoutMs: 10_000,
    signal: new AbortController().signal,
    env,
    sandbox: SANDBOX,
  });
}

/** A model server: every answer is "done.", and it keeps the Authorization header it was sent. */
class Listener {
  readonly keys: string[] = [];
  private server?: Server;

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      this.keys.push(req.headers.authorization ?? "");
      req.resume();
      req.on("end", () => {
        const chunk = (choice: object) =>
          `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 0, model: "m", choices: [{ index: 0, ...choice }] })}\n\n`;
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.end(
          chunk({ delta: { role: "assistant", content: "done." }, finish_reason: null }) +
            chunk({ delta: {}, finish_reason: "stop" }) +
            "data: [DONE]\n\n",
        );
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => (this.server ? this.server.close(resolve) : resolve(undefined)));
  }
}

const listeners: Listener[] = [];
afterEach(async () => {
  await Promise.all(listeners.splice(0).map((listener) => listener.stop()));
});

/**
 * The agent started as a person would, from `cwd`, with `env` on top of a clean environment. A
 * preload refuses every request that is not to this machine: an attack that fails must not
 * send the test's key to a real server either.
 */
async function startAgent(args: string[], cwd: string, env: Record<string, string>) {
  const guard = path.join(await scratch("fetch-guard"), "guard.mjs");
  await writeFile(
    guard,
    `const real = globalThis.fetch;
globalThis.fetch = (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  if (url.hostname !== "127.0.0.1") return Promise.reject(new TypeError("attack test: no network"));
  return real(input, init);
};\n`,
  );
  const child = spawn(process.execPath, ["--import", guard, await mainBundle(), ...args], {
    cwd,
    env: {
      PATH: process.env.PATH!,
      HOME: process.env.HOME!,
      NO_COLOR: "1",
      AGENT_MAX_RETRIES: "0",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  return { code, output };
}

describe.skipIf(SANDBOX === undefined && !IN_CI)("a command tries to leave the sandbox", () => {
  // The agent's side: a process holding the key in its environment, as the agent does.
  let agent: ReturnType<typeof spawn> | undefined;
  beforeAll(() => {
    agent = spawn("sleep", ["600"], { env: { PATH: process.env.PATH, OPENAI_API_KEY: KEY } });
  });
  afterAll(() => {
    agent?.kill("SIGKILL");
  });

  const ATTACKS: {
    name: string;
    script: (pid: number, outside: string) => string;
    escaped: (output: string, outside: string) => boolean;
  }[] = [
    {
      name: "remount / writable and write outside the workspace",
      script: (_, outside) =>
        `mount -o remount,rw / ; mount -o remount,rw,bind / ; touch '${outside}'`,
      escaped: (_, outside) => existsSync(outside),
    },
    {
      name: "unmount the private /proc and read the agent's environment",
      script: (pid) =>
        `umount -l /proc ; cat /proc/$PPID/environ /proc/1/environ /proc/${pid}/environ ; grep -a -h -o '${KEY}' /proc/*/environ`,
      escaped: (output) => output.includes(KEY),
    },
    {
      name: "enter the machine's network namespace",
      script: (pid) =>
        `umount -l /proc ; nsenter --net=/proc/${pid}/ns/net cat /proc/net/dev ; nsenter --net=/proc/1/ns/net cat /proc/net/dev`,
      escaped: (output) => [...output.matchAll(/^\s*([\w.-]+):\s+\d/gm)].some((m) => m[1] !== "lo"),
    },
  ];

  it(
    "remount, /proc, nsenter: every attempt fails, as root too",
    async () => {
      if (SANDBOX === undefined)
        throw new Error("CI must run the sandbox attacks: bubblewrap does not work here");
      const workspace = await scratch("sandbox-escape");
      let trials = 0;
      const escapes: string[] = [];
      for (let round = 0; round < SCALE; round += 1) {
        for (const attack of ATTACKS) {
          const outside = path.join("/var/tmp", `.attack-escape-${process.pid}-${trials}`);
          try {
            const { output } = await command(attack.script(agent!.pid!, outside), workspace);
            trials += 1;
            if (attack.escaped(output, outside)) escapes.push(attack.name);
          } finally {
            await rm(outside, { force: true });
          }
        }
      }
      const who = process.getuid?.() === 0 ? "root" : "a normal user";
      report("sandbox escape", `${trials} trials as ${who}, ${escapes.length} escaped`);
      expect(escapes).toEqual([]);
    },
    timeLimit(60),
  );
});

describe("the next start's git status", () => {
  /** A repository whose config runs `hostile.sh` four ways; it writes its environment to `marker`. */
  async function hostileRepo(): Promise<{ workspace: string; marker: string }> {
    const root = await scratch("hostile-git");
    const workspace = path.join(root, "repo");
    const marker = path.join(root, "ran.txt");
    const script = path.join(root, "hostile.sh");
    await mkdir(path.join(workspace, ".git", "info"), { recursive: true });
    await writeFile(
      script,
      `#!/bin/sh\necho "ran: $0 $*" >> '${marker}'\nenv >> '${marker}'\n[ "$1" = clean ] && cat\n`,
      { mode: 0o755 },
    );
    await mkdir(path.join(root, "hooks"));
    await writeFile(
      path.join(root, "hooks", "post-index-change"),
      `#!/bin/sh\nexec '${script}'\n`,
      { mode: 0o755 },
    );
    await git(["init", "--quiet"], workspace);
    await writeFile(path.join(workspace, "tracked.txt"), "hello\n");
    await git(["add", "tracked.txt"], workspace);
    const config = [
      ["core.fsmonitor", script],
      ["core.hooksPath", path.join(root, "hooks")],
      ["filter.evil.clean", `${script} clean`],
      ["filter.evil.process", script],
    ];
    for (const [name, value] of config) await git(["config", name!, value!], workspace);
    await writeFile(path.join(workspace, ".git", "info", "attributes"), "* filter=evil\n");
    // Its time changed: git must hash it again, through the filter.
    await utimes(path.join(workspace, "tracked.txt"), new Date(2001, 0, 1), new Date(2001, 0, 1));
    return { workspace, marker };
  }

  function git(args: string[], cwd: string): Promise<void> {
    return new Promise((resolve, reject) => {
      spawn("git", args, { cwd, stdio: "ignore" }).on("close", (code) =>
        code === 0 ? resolve() : reject(new Error(`git ${args.join(" ")}: ${code}`)),
      );
    });
  }

  it(
    "runs nothing a hostile .git/config names, and gives it no key (--print-prompt, and a run with --commands deny)",
    async () => {
      const listener = new Listener();
      listeners.push(listener);
      const baseURL = await listener.start();
      const starts = [
        ["--print-prompt", "--repo", "."],
        ["--commands", "deny", "--repo", ".", "say done"],
      ];
      let trials = 0;
      const ran: string[] = [];
      for (let round = 0; round < SCALE; round += 1) {
        for (const args of starts) {
          const { workspace, marker } = await hostileRepo();
          const env = { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: baseURL, AGENT_MODEL: "m" };
          const { output } = await startAgent(args, workspace, env);
          trials += 1;
          if (existsSync(marker)) {
            const text = await readFile(marker, "utf8");
            ran.push(`${args[0]}: ${text.includes(KEY) ? "ran, with the key" : "ran"}`);
          }
          expect(output).not.toContain("Error:");
        }
      }
      report("hostile .git/config", `${trials} starts, ${ran.length} ran the hook`);
      expect(ran).toEqual([]);
      // The run got as far as asking the model, with the prompt that git status went into.
      expect(listener.keys.length).toBeGreaterThan(0);
    },
    timeLimit(60),
  );
});

describe("a .env a command wrote", () => {
  it(
    "does not send the key to the base URL it names when the agent starts from that folder",
    async () => {
      let trials = 0;
      let leaked = 0;
      for (let round = 0; round < SCALE; round += 1) {
        const hostile = new Listener();
        listeners.push(hostile);
        const hostileURL = await hostile.start();
        const workspace = await scratch("hostile-dotenv");
        // The command: in the sandbox when there is one, as the agent would run it.
        const wrote = await command(
          `printf 'OPENAI_BASE_URL=${hostileURL}\\nAGENT_MODEL=m\\n' > .env`,
          workspace,
        );
        expect(wrote.exitCode).toBe(0);
        // The next run, from the workspace: the key in the environment, no base URL there.
        await startAgent(["--commands", "deny", "--repo", ".", "say done"], workspace, {
          OPENAI_API_KEY: KEY,
          AGENT_MODEL: "m",
          AGENT_TIMEOUT_MS: "5000",
        });
        trials += 1;
        if (hostile.keys.some((header) => header.includes(KEY))) leaked += 1;
      }
      report("hostile .env", `${trials} runs, ${leaked} sent the key to the command's listener`);
      expect(leaked).toBe(0);
    },
    timeLimit(60),
  );
});
