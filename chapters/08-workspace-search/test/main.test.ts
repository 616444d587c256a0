import { rm } from "node:fs/promises";
import path from "node:path";
import { copyDemoRepo } from "@build-agent/shared/demo-repo";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { main } from "../src/main.ts";

const USAGE = 'usage: pnpm chapter 8 -- "question about the repository" [--repo PATH]';
let workspace: string;

beforeEach(async () => {
  workspace = await copyDemoRepo("ch08-main-");
  // Offline, whatever the machine has configured.
  for (const name of ["OPENAI_API_KEY", "OPENAI_BASE_URL", "AGENT_MODEL"]) vi.stubEnv(name, "");
  vi.stubEnv("NO_COLOR", "1");
  // main reads .env from the current directory; a developer's .env must not reach the test.
  vi.spyOn(process, "cwd").mockReturnValue(workspace);
});
afterEach(async () => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
  await rm(workspace, { recursive: true, force: true });
});

function capture(stream: NodeJS.WriteStream): () => string {
  let text = "";
  vi.spyOn(stream, "write").mockImplementation((chunk: string | Uint8Array) => {
    text += String(chunk);
    return true;
  });
  return () => text;
}

describe("chapter 08 main", () => {
  it("answers a question about a repository with one line per tool call", async () => {
    const stdout = capture(process.stdout);
    const stderr = capture(process.stderr);
    const code = await main(["--repo", workspace, "What is this repository?"]);
    expect(code).toBe(0);
    expect(stdout()).toContain(
      "Let me see which files the repository has.\n→ list_files  ok\nThe README should say what this project is.\n→ read_file README.md  ok\nThis is corner-shop",
    );
    expect(stderr()).toContain("offline: no model configured");
    expect(stderr()).toContain(`workspace: ${workspace}\n`);
    expect(stderr()).toMatch(/tokens: \d+ in, \d+ out over 3 model calls/);
  });

  it("refuses a --repo that is not a folder, before starting anything", async () => {
    const stderr = capture(process.stderr);
    const missing = path.join(workspace, "no-such-dir");
    expect(await main(["--repo", missing, "q"])).toBe(2);
    expect(await main(["--repo", path.join(workspace, "README.md"), "q"])).toBe(2);
    expect(stderr()).toBe(
      `error: --repo ${missing}: no such folder; pass the folder of a repository\n${USAGE}\n` +
        `error: --repo ${workspace}/README.md: no such folder; pass the folder of a repository\n${USAGE}\n`,
    );
  });

  it("resolves a relative --repo from where pnpm was started (INIT_CWD)", async () => {
    const stderr = capture(process.stderr);
    capture(process.stdout);
    vi.stubEnv("INIT_CWD", path.dirname(workspace));
    expect(await main(["--repo", path.basename(workspace), "q"])).toBe(0);
    expect(stderr()).toContain(`workspace: ${workspace}\n`);
  });

  it("explains a bad command line", async () => {
    const stderr = capture(process.stderr);
    expect(await main(["--nope"])).toBe(2);
    expect(stderr()).toContain(
      'usage: pnpm chapter 8 -- "question about the repository" [--repo PATH]',
    );
  });
});
