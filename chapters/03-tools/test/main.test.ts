import { spawn } from "node:child_process";
import { mkdir, readFile, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { copyDemoRepo } from "@build-agent/shared/demo-repo";
import { loadScript, startOfflineModel } from "@build-agent/shared/offline-model";
import type { OfflineModel } from "@build-agent/shared/offline-model";
import {
  makeTempDir,
  readTree,
  runCommand,
  writeTree,
  type RunCommandOptions,
} from "@build-agent/shared/test-helpers";
import { afterAll, afterEach, describe, expect, it } from "vitest";

const main = fileURLToPath(new URL("../src/main.ts", import.meta.url));
// tsx as a loader inside one node process, not the tsx CLI: the CLI wraps the program in a second
// process and relays Ctrl-C to it, killing it outright when it does not answer within 30 ms, which
// a busy machine can miss. The tests' SIGINT must reach the program itself.
const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
/** Node's arguments to run the chapter's main with these arguments. */
const mainArgs = (...args: string[]): string[] => ["--import", tsxLoader, main, ...args];

const USAGE = 'usage: pnpm chapter 3 -- "task or question" [--repo PATH]';
const FIXED = "const goods = Math.max(0, subtotal(items) - couponCents);";

// The chapter must not pick up a developer's real model settings while under test.
const noModel = {
  OPENAI_API_KEY: undefined,
  OPENAI_BASE_URL: undefined,
  AGENT_MODEL: undefined,
  AGENT_TIMEOUT_MS: undefined,
  AGENT_MAX_RETRIES: undefined,
  AGENT_CONTEXT_TOKENS: undefined,
  INIT_CWD: undefined,
  NO_COLOR: "1",
};

const tempDirs: string[] = [];
afterAll(async () => {
  await Promise.all(tempDirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

let server: OfflineModel | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function tempDir(prefix: string): Promise<string> {
  const dir = await makeTempDir(prefix);
  tempDirs.push(dir);
  return dir;
}

/** A scratch copy of the demo repository, removed after the tests. */
async function demoCopy(): Promise<string> {
  const dir = await copyDemoRepo("ch03-main-repo-");
  tempDirs.push(dir);
  return dir;
}

/** Runs main in an empty folder (no developer's .env) with its own TMPDIR for scratch copies. */
async function runMain(args: string[], options: RunCommandOptions = {}) {
  const tmp = await tempDir("ch03-main-tmp-");
  await mkdir(join(tmp, "cwd"));
  return runCommand(process.execPath, mainArgs(...args), {
    cwd: join(tmp, "cwd"),
    ...options,
    env: { ...noModel, TMPDIR: tmp, ...options.env },
  });
}

/** Environment pointing the chapter at a test-owned offline model, so the test sees its requests. */
function envFor(model: OfflineModel) {
  return { OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: model.apiKey, AGENT_MODEL: model.model };
}

describe("chapter 03 main", () => {
  it("offline, fixes the demo bug on a scratch copy and the demo's check passes", async () => {
    const result = await runMain([]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("→ list_files  ok\n");
    expect(result.stdout).toContain("→ read_file src/cart.mjs  ok\n");
    expect(result.stdout).toContain("→ edit_file src/cart.mjs  ok\n");
    const notes = result.stderr.trim().split("\n");
    expect(notes[0]).toBe(
      "offline: no model configured (OPENAI_API_KEY / OPENAI_BASE_URL unset) — answers come from a scripted demo",
    );
    const workspace = /^workspace: (\S+) \(scratch copy of the demo repository\)$/.exec(
      notes[1] ?? "",
    )?.[1];
    expect(workspace).toBeDefined();
    expect(notes.slice(2)).toEqual([
      expect.stringMatching(/^tokens: \d+ in, \d+ out over 4 model calls$/),
      "check: node check.mjs → all checks passed (7)",
      `see for yourself: cd ${workspace} && node check.mjs`,
    ]);
    expect(await readFile(join(workspace!, "src/cart.mjs"), "utf8")).toContain(FIXED);
  });

  it("works in the folder --repo names, and leaves the check to you", async () => {
    const repo = await demoCopy();
    const result = await runMain(["fix the coupon bug", "--repo", repo]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`workspace: ${repo}\n`);
    expect(result.stderr).not.toContain("check:");
    expect(await readFile(join(repo, "src/cart.mjs"), "utf8")).toContain(FIXED);
  });

  it("refuses a --repo that is not a folder before anything starts", async () => {
    const missing = join(await tempDir("ch03-main-missing-"), "nope");
    const result = await runMain(["--repo", missing]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(
      `error: --repo ${missing}: no such folder; pass the folder of a repository\n${USAGE}\n`,
    );
  });

  it("refuses an unknown option with the usage line", async () => {
    const result = await runMain(["--rep", "x"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(USAGE);
  });

  it("offline on a folder that is not the demo repository, says so and changes nothing", async () => {
    const repo = await tempDir("ch03-main-other-");
    await writeTree(repo, { "notes.txt": "nothing to fix\n" });
    const result = await runMain(["--repo", repo]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("→ read_file src/cart.mjs  failed: Error [file_not_found]");
    expect(result.stdout).toContain("This scripted demo only fits the tutorial's demo repository");
    expect(await readTree(repo)).toEqual({ "notes.txt": "nothing to fix\n" });
  });

  it("chats about the workspace over piped stdin, one turn per line, with memory", async () => {
    server = await startOfflineModel({ script: loadScript("chat") });
    const repo = await demoCopy();
    const result = await runMain(["--repo", repo], {
      input: "What is a monorepo?\n\nWhy use one?\n",
      env: envFor(server),
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('You asked: "What is a monorepo?"');
    expect(result.stdout).toContain('You asked: "Why use one?"');
    expect(server.requests).toHaveLength(2);
    expect(server.requests[0]?.tools?.map((tool) => tool.function.name)).toEqual([
      "list_files",
      "read_file",
      "edit_file",
    ]);
    expect(server.requests[1]?.messages.map((message) => message.role)).toEqual([
      "system",
      "user",
      "assistant",
      "user",
    ]);
    expect(String(server.requests[0]?.messages[0]?.content)).toContain(
      "Use the tools to look at its files before you answer",
    );
    expect(result.stderr.trim().split("\n")).toEqual([
      `workspace: ${repo}`,
      expect.stringMatching(/^tokens: \d+ in, \d+ out over 1 model calls$/),
      expect.stringMatching(/^tokens: \d+ in, \d+ out over 1 model calls$/),
    ]);
  });

  it("exits 1 with one line naming the URL when nothing listens there", async () => {
    const baseURL = `http://127.0.0.1:${await closedPort()}/v1`;
    const repo = await demoCopy();
    const result = await runMain(["--repo", repo], {
      input: "hi\nnever asked\n",
      env: { OPENAI_BASE_URL: baseURL, AGENT_MODEL: "m", AGENT_MAX_RETRIES: "0" },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `workspace: ${repo}\nerror: cannot reach ${baseURL}: is the server running? check OPENAI_BASE_URL\n`,
    );
  });

  it("prints 'aborted' and exits 130 on Ctrl-C during a piped answer", async () => {
    server = await startOfflineModel({
      script: loadScript("chat"),
      faults: [{ kind: "stall", ms: 60_000 }],
    });
    const model = server;
    const repo = await demoCopy();
    const env = { ...process.env, ...noModel, ...envFor(model) };
    const child = spawn(process.execPath, mainArgs("--repo", repo), {
      cwd: await tempDir("ch03-main-cwd-"),
      env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    child.stdin.end("hi\nnever asked\n");
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text));
    const exited = new Promise<number | null>((resolve) =>
      child.on("close", (code) => resolve(code)),
    );
    try {
      while (model.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      child.kill("SIGINT");
      expect(await exited).toBe(130);
      expect(stderr).toBe(`workspace: ${repo}\naborted\n`);
      expect(model.requests).toHaveLength(1);
    } finally {
      child.kill("SIGKILL");
    }
  });
});

/** A port nothing listens on: bind one, then close it. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}
