import { spawn } from "node:child_process";
import { rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { fileURLToPath, pathToFileURL } from "node:url";
import { loadScript, startOfflineModel } from "@build-agent/shared/offline-model";
import type { OfflineModel } from "@build-agent/shared/offline-model";
import { makeTempDir, runCommand, type RunCommandOptions } from "@build-agent/shared/test-helpers";
import { afterAll, afterEach, describe, expect, it } from "vitest";

const main = fileURLToPath(new URL("../src/main.ts", import.meta.url));
// tsx as a loader inside one node process, not the tsx CLI: the CLI wraps the program in a second
// process and relays Ctrl-C to it, killing it outright when it does not answer within 30 ms, which
// a busy machine can miss. The tests' SIGINT must reach the program itself.
const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
/** Node's arguments to run the chapter's main with these arguments. */
const mainArgs = (...args: string[]): string[] => ["--import", tsxLoader, main, ...args];

// The chapter must not pick up a developer's real model settings while under test.
const noModel = {
  OPENAI_API_KEY: undefined,
  OPENAI_BASE_URL: undefined,
  AGENT_MODEL: undefined,
  AGENT_TIMEOUT_MS: undefined,
  AGENT_MAX_RETRIES: undefined,
  AGENT_CONTEXT_TOKENS: undefined,
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

/** An empty working directory, so no developer's .env is read. */
async function emptyCwd(): Promise<string> {
  const dir = await makeTempDir("ch02-main-");
  tempDirs.push(dir);
  return dir;
}

async function runMain(args: string[], options: RunCommandOptions = {}) {
  return runCommand(process.execPath, mainArgs(...args), {
    cwd: await emptyCwd(),
    ...options,
    env: { ...noModel, ...options.env },
  });
}

/** Environment pointing the chapter at a test-owned offline model, so the test sees its requests. */
function envFor(model: OfflineModel) {
  return { OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: model.apiKey, AGENT_MODEL: model.model };
}

describe("chapter 02 main", () => {
  it("chats offline over piped stdin, one turn per line, with memory", async () => {
    server = await startOfflineModel({ script: loadScript("chat") });
    const result = await runMain([], {
      input: "What is a monorepo?\n\nWhy use one?\n",
      env: envFor(server),
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('You asked: "What is a monorepo?"');
    expect(result.stdout).toContain('You asked: "Why use one?"');
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]?.messages.map((message) => message.role)).toEqual([
      "system",
      "user",
      "assistant",
      "user",
    ]);
    const notes = result.stderr.trim().split("\n");
    expect(notes).toHaveLength(2);
    for (const line of notes) expect(line).toMatch(/^tokens: \d+ in, \d+ out$/);
  });

  it("runs one turn for a question in argv, offline when nothing is configured", async () => {
    const result = await runMain(["What is a monorepo?"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('You asked: "What is a monorepo?"');
    expect(result.stderr.split("\n")[0]).toBe(
      "offline: no model configured (OPENAI_API_KEY / OPENAI_BASE_URL unset) — answers come from a scripted demo",
    );
  });

  it("exits 1 with one line naming the URL when nothing listens there", async () => {
    const baseURL = `http://127.0.0.1:${await closedPort()}/v1`;
    const result = await runMain([], {
      input: "hi\nnever asked\n",
      env: { OPENAI_BASE_URL: baseURL, AGENT_MODEL: "m" },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `error: cannot reach ${baseURL}: is the server running? check OPENAI_BASE_URL\n`,
    );
  });

  it("prints 'aborted' and exits 130 on Ctrl-C during a piped answer", async () => {
    server = await startOfflineModel({
      script: loadScript("chat"),
      faults: [{ kind: "stall", ms: 60_000 }],
    });
    const model = server;
    const env = { ...process.env, ...noModel, ...envFor(model) };
    const child = spawn(process.execPath, mainArgs(), {
      cwd: await emptyCwd(),
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
      expect(stderr).toBe("aborted\n");
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
