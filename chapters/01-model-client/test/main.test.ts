import { fileURLToPath, pathToFileURL } from "node:url";
import { loadScript, startOfflineModel } from "@build-agent/shared/offline-model";
import { makeTempDir, runCommand, type RunCommandOptions } from "@build-agent/shared/test-helpers";
import { spawn } from "node:child_process";
import { rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { afterAll, describe, expect, it } from "vitest";

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
  NO_COLOR: "1",
};

const tempDirs: string[] = [];
afterAll(async () => {
  await Promise.all(tempDirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** An empty working directory, so no developer's .env is read. */
async function emptyCwd(): Promise<string> {
  const dir = await makeTempDir("ch01-main-");
  tempDirs.push(dir);
  return dir;
}

async function runMain(args: string[], options: RunCommandOptions = {}) {
  const cwd = await emptyCwd();
  return runCommand(process.execPath, mainArgs(...args), {
    cwd,
    ...options,
    env: { ...noModel, ...options.env },
  });
}

describe("chapter 01 main", () => {
  it("answers a question from argv offline, saying so, with usage on one line", async () => {
    const result = await runMain(["What is a monorepo?"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('You asked: "What is a monorepo?"');
    const notes = result.stderr.trim().split("\n");
    expect(notes[0]).toBe(
      "offline: no model configured (OPENAI_API_KEY / OPENAI_BASE_URL unset) — answers come from a scripted demo",
    );
    expect(notes[1]).toMatch(/^tokens: \d+ in, \d+ out, \d+ total$/);
    expect(notes).toHaveLength(2);
  });

  it("writes out the escape codes in the model's answer instead of obeying them", async () => {
    // The offline model echoes the question: an answer that would hide the rest of the screen.
    const result = await runMain(["hide\x1b[8m this\x1b]0;title\x07"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('You asked: "hide\\x1b[8m this\\x1b]0;title\\x07"');
    expect(result.stdout).not.toContain("\x1b");
  });

  it("reads the question from piped stdin", async () => {
    const result = await runMain([], { input: "Why is the sky blue?\n" });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('You asked: "Why is the sky blue?"');
  });

  it("exits 1 with usage when there is no question", async () => {
    const result = await runMain([], { input: "" });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'error: usage: pnpm chapter 1 -- "your question"   (or pipe it: echo "your question" | pnpm chapter 1)\n',
    );
  });

  it("exits 1 with one line, no stack, on a configuration error", async () => {
    const result = await runMain(["hi"], {
      env: { OPENAI_BASE_URL: "https://models.example.com/v1", AGENT_MODEL: "m" },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      "error: OPENAI_API_KEY is not set, but https://models.example.com/v1 is a remote endpoint that needs one: set OPENAI_API_KEY (environment or .env), or point OPENAI_BASE_URL at a local server\n",
    );
  });

  it("exits 1 with one line when the model rejects the key", async () => {
    const model = await startOfflineModel({
      script: loadScript("chat"),
      faults: [{ kind: "bad_key" }],
    });
    try {
      const result = await runMain(["hi"], {
        env: {
          OPENAI_BASE_URL: model.baseURL,
          OPENAI_API_KEY: model.apiKey,
          AGENT_MODEL: model.model,
        },
      });
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(`error: key rejected by ${model.baseURL}: check OPENAI_API_KEY\n`);
    } finally {
      await model.close();
    }
  });

  it("exits 1 with one line naming the URL when nothing listens there", async () => {
    const baseURL = `http://127.0.0.1:${await closedPort()}/v1`;
    const result = await runMain(["hi"], {
      env: { OPENAI_BASE_URL: baseURL, AGENT_MODEL: "m" },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `error: cannot reach ${baseURL}: is the server running? check OPENAI_BASE_URL\n`,
    );
  });

  it("prints 'aborted' and exits 130 on Ctrl-C, without a stack", async () => {
    const model = await startOfflineModel({
      script: loadScript("chat"),
      faults: [{ kind: "stall", ms: 60_000 }],
    });
    const cwd = await emptyCwd();
    const env = {
      ...process.env,
      ...noModel,
      OPENAI_BASE_URL: model.baseURL,
      OPENAI_API_KEY: model.apiKey,
      AGENT_MODEL: model.model,
    };
    const child = spawn(process.execPath, mainArgs("hi"), {
      cwd,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text));
    const exited = new Promise<number | null>((resolve) =>
      child.on("close", (code) => resolve(code)),
    );
    try {
      // Ctrl-C once the request is in flight (the server stalls it).
      while (model.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      child.kill("SIGINT");
      expect(await exited).toBe(130);
      expect(stderr).toBe("aborted\n");
    } finally {
      child.kill("SIGKILL");
      await model.close();
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
