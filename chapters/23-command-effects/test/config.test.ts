import { execFileSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { DOTENV_FILE, loadConfig, OFFLINE_NOTICE, resolveConfig } from "../src/model/config.ts";

const limits = { timeoutMs: 60_000, maxRetries: 3, contextTokens: 32_000 };

describe("resolveConfig", () => {
  it("runs offline when nothing is configured, and says so in one line", () => {
    expect(resolveConfig({})).toEqual({ kind: "offline", notice: OFFLINE_NOTICE, ...limits });
    expect(OFFLINE_NOTICE).toBe(
      "offline: no model configured (OPENAI_API_KEY / OPENAI_BASE_URL unset) — answers come from a scripted demo",
    );
  });

  it("uses api.openai.com and gpt-4.1-mini when only a key is set", () => {
    expect(resolveConfig({ OPENAI_API_KEY: "sk-test" })).toEqual({
      kind: "endpoint",
      baseURL: "https://api.openai.com/v1",
      apiKey: "sk-test",
      model: "gpt-4.1-mini",
      ...limits,
    });
  });

  it("needs no key for a local server and uses a placeholder", () => {
    const config = resolveConfig({
      OPENAI_BASE_URL: "http://localhost:11434/v1/",
      AGENT_MODEL: "qwen2.5-coder",
    });
    expect(config).toEqual({
      kind: "endpoint",
      baseURL: "http://localhost:11434/v1",
      apiKey: "local",
      model: "qwen2.5-coder",
      ...limits,
    });
    expect(
      resolveConfig({ OPENAI_BASE_URL: "http://127.0.0.1:8080/v1", AGENT_MODEL: "m" }),
    ).toMatchObject({
      kind: "endpoint",
      apiKey: "local",
    });
  });

  it("refuses a remote endpoint without a key, naming OPENAI_API_KEY", () => {
    expect(
      resolveConfig({
        OPENAI_BASE_URL: "https://api.deepseek.com/v1",
        AGENT_MODEL: "deepseek-chat",
      }),
    ).toEqual({
      kind: "invalid",
      message:
        "OPENAI_API_KEY is not set, but https://api.deepseek.com/v1 is a remote endpoint that needs one: set OPENAI_API_KEY (environment or .env), or point OPENAI_BASE_URL at a local server",
    });
  });

  it("requires AGENT_MODEL for any endpoint but api.openai.com", () => {
    expect(resolveConfig({ OPENAI_BASE_URL: "http://localhost:11434/v1" })).toEqual({
      kind: "invalid",
      message:
        "AGENT_MODEL is not set: name the model http://localhost:11434/v1 should run, e.g. AGENT_MODEL=qwen2.5-coder",
    });
  });

  it("refuses AGENT_MODEL alone instead of silently going offline", () => {
    expect(resolveConfig({ AGENT_MODEL: "qwen2.5-coder" })).toEqual({
      kind: "invalid",
      message:
        'AGENT_MODEL is set to "qwen2.5-coder" but no endpoint is: set OPENAI_BASE_URL (e.g. http://localhost:11434/v1 for Ollama) or OPENAI_API_KEY for api.openai.com',
    });
  });

  it("refuses a base URL that is not http(s)", () => {
    expect(resolveConfig({ OPENAI_BASE_URL: "localhost:11434", AGENT_MODEL: "m" })).toEqual({
      kind: "invalid",
      message:
        'OPENAI_BASE_URL "localhost:11434" is not an http(s) URL: use e.g. https://api.openai.com/v1 or http://localhost:11434/v1',
    });
  });

  it("reads timeout and retries, and rejects values that are not whole numbers", () => {
    expect(resolveConfig({ AGENT_TIMEOUT_MS: "500", AGENT_MAX_RETRIES: "0" })).toMatchObject({
      kind: "offline",
      timeoutMs: 500,
      maxRetries: 0,
    });
    expect(resolveConfig({ AGENT_TIMEOUT_MS: "1.5s" })).toEqual({
      kind: "invalid",
      message: 'AGENT_TIMEOUT_MS must be a whole number >= 1, got "1.5s" (default 60000)',
    });
    expect(resolveConfig({ AGENT_MAX_RETRIES: "-1" })).toEqual({
      kind: "invalid",
      message: 'AGENT_MAX_RETRIES must be a whole number >= 0, got "-1" (default 3)',
    });
  });

  it("reads the context budget from AGENT_CONTEXT_TOKENS, 32000 by default", () => {
    expect(resolveConfig({})).toMatchObject({ contextTokens: 32_000 });
    expect(resolveConfig({ AGENT_CONTEXT_TOKENS: "8000" })).toMatchObject({ contextTokens: 8000 });
    expect(resolveConfig({ AGENT_CONTEXT_TOKENS: "32k" })).toEqual({
      kind: "invalid",
      message: 'AGENT_CONTEXT_TOKENS must be a whole number >= 1, got "32k" (default 32000)',
    });
    expect(resolveConfig({ AGENT_CONTEXT_TOKENS: "0" })).toMatchObject({ kind: "invalid" });
  });

  it("reads .env text, and the real environment wins over it", () => {
    const dotenv = "# my model\nOPENAI_API_KEY=sk-from-file\nAGENT_MODEL='gpt-4.1'\n";
    expect(resolveConfig({}, dotenv)).toMatchObject({ apiKey: "sk-from-file", model: "gpt-4.1" });
    expect(resolveConfig({ AGENT_MODEL: "gpt-4o" }, dotenv)).toMatchObject({
      apiKey: "sk-from-file",
      model: "gpt-4o",
    });
  });

  it("treats an empty variable as unset, so an empty env value does not hide .env", () => {
    expect(resolveConfig({ OPENAI_API_KEY: "" })).toMatchObject({ kind: "offline" });
    expect(resolveConfig({ OPENAI_API_KEY: " " }, "OPENAI_API_KEY=sk-file")).toMatchObject({
      apiKey: "sk-file",
    });
  });
});

describe("loadConfig", () => {
  it("reads the given .env file, and works without one", async () => {
    const dir = await mkdtemp(join(tmpdir(), "ch01-config-"));
    try {
      expect(await loadConfig(join(dir, ".env"), {})).toMatchObject({ kind: "offline" });
      await writeFile(join(dir, ".env"), "OPENAI_BASE_URL=http://127.0.0.1:9/v1\nAGENT_MODEL=m\n");
      expect(await loadConfig(join(dir, ".env"), {})).toMatchObject({
        kind: "endpoint",
        baseURL: "http://127.0.0.1:9/v1",
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("reads .env at the repository root only, never from the folder it is started in", async () => {
    const root = fileURLToPath(new URL("../../..", import.meta.url));
    expect(DOTENV_FILE).toBe(join(root, ".env"));
    // A workspace where a command wrote a .env that sends the key elsewhere, and the agent is
    // started from there (tsx chapters/…/main.ts, or an editor's task): that file is not read.
    const workspace = await mkdtemp(join(tmpdir(), "ch01-hostile-env-"));
    try {
      await writeFile(join(workspace, ".env"), "OPENAI_BASE_URL=http://127.0.0.1:9/v1\n");
      const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
      const config = new URL("../src/model/config.ts", import.meta.url).href;
      const script = `const { loadConfig } = await import(${JSON.stringify(config)}); console.log(JSON.stringify(await loadConfig()));`;
      const printed = execFileSync(
        process.execPath,
        ["--import", tsx, "--input-type=module", "-e", script],
        {
          cwd: workspace,
          env: { PATH: process.env.PATH, OPENAI_API_KEY: "sk-test-not-a-real-key" },
          encoding: "utf8",
        },
      );
      expect(printed).not.toContain("127.0.0.1:9");
    } finally {
      await rm(workspace, { recursive: true, force: true });
    }
  });
});
