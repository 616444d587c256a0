import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { childEnv, ENV_ALLOW_LIST } from "../src/commands/child-env.ts";
import { runCommand } from "../src/commands/run-command.ts";

const SECRET = "sk-test-0123456789abcdefghijklmnop";
const GITHUB = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";

describe("childEnv", () => {
  it("passes only the allow-list through", () => {
    const env = childEnv({ PATH: "/usr/bin", HOME: "/home/me", EDITOR: "vim", npm_token: "x" }, []);
    expect(env).toEqual({ PATH: "/usr/bin", HOME: "/home/me" });
    expect(ENV_ALLOW_LIST).toContain("PATH");
  });

  it("drops an allowed variable whose value holds the secret or looks like a key", () => {
    const env = childEnv(
      {
        PATH: "/usr/bin",
        TZ: SECRET,
        NODE_ENV: `x${"y".repeat(8)}z`,
        LANG: `C.UTF-8 ${GITHUB}`,
        TERM: "AKIAABCDEFGHIJKLMNOP",
        USER: "someone-with-the-key-xyzzy-42",
      },
      ["yyyyyyyy", "xyzzy-42"],
    );
    expect(env).toEqual({ PATH: "/usr/bin" });
  });

  it("ignores placeholder keys too short to be a secret (local servers take `EMPTY`)", () => {
    const env = childEnv({ PATH: "/usr/share/ollama/bin:/usr/bin" }, ["ollama", ""]);
    expect(env).toEqual({ PATH: "/usr/share/ollama/bin:/usr/bin" });
  });
});

describe("a command's environment", () => {
  it("holds no key, token or secret of the agent's, and still has PATH", async () => {
    const parent: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: "/home/someone",
      LANG: "C.UTF-8",
      OPENAI_API_KEY: SECRET,
      AGENT_API_KEY: SECRET,
      GITHUB_TOKEN: GITHUB,
      TZ: SECRET,
      NODE_ENV: `production ${SECRET}`,
    };
    const cwd = await mkdtemp(join(tmpdir(), "child-env-"));
    try {
      const outcome = await runCommand({
        command: "env",
        cwd,
        timeoutMs: 10_000,
        signal: new AbortController().signal,
        env: childEnv(parent, [SECRET]),
      });
      expect(outcome.exitCode).toBe(0);
      for (const leak of [SECRET, GITHUB, "OPENAI_API_KEY", "AGENT_API_KEY", "GITHUB_TOKEN"]) {
        expect(outcome.output).not.toContain(leak);
      }
      expect(outcome.output).not.toMatch(/^(TZ|NODE_ENV)=/m);
      expect(outcome.output.split("\n")).toContain(`PATH=${process.env.PATH}`);
      expect(outcome.output).toMatch(/^LANG=C\.UTF-8$/m);
    } finally {
      await rm(cwd, { recursive: true, force: true });
    }
  });
});
