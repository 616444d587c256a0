import { readFile, rm, stat } from "node:fs/promises";
import path from "node:path";
import { copyDemoRepo, runDemoCheck } from "@build-agent/shared/demo-repo";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { main } from "../src/main.ts";

const USAGE = 'usage: pnpm chapter 8 -- "what to change" [--repo PATH]';
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

describe("chapter 08 main: one task per run", () => {
  it("with no task, fixes the demo bug with edit_file: a line per call, the edit's own answer", async () => {
    expect((await runDemoCheck(workspace)).ok).toBe(false);
    const stdout = capture(process.stdout);
    const stderr = capture(process.stderr);

    expect(await main(["--repo", workspace])).toBe(0);

    expect(stdout()).toContain(
      "I will look at the repository's files first.\n→ list_files  ok\nThe totals",
    );
    expect(stdout()).toContain("→ read_file src/cart.mjs  ok\n");
    expect(stdout()).toContain("→ edit_file  Edited src/cart.mjs: replaced 1 occurrence.\n");
    expect(stderr()).toContain(`workspace: ${workspace}\n`);
    expect(stderr()).toMatch(/tokens: \d+ in, \d+ out over 4 model calls\n/);
    // With --repo the folder is the user's: no hint to look in a scratch copy.
    expect(stderr()).not.toContain("see for yourself");
    const cart = await readFile(path.join(workspace, "src/cart.mjs"), "utf8");
    expect(cart).toContain("const goods = Math.max(0, subtotal(items) - couponCents);");
    expect((await runDemoCheck(workspace)).ok).toBe(true);
  });

  it("without --repo works on a scratch copy of the demo, and keeps it to look at", async () => {
    const stderr = capture(process.stderr);
    capture(process.stdout);
    expect(await main([])).toBe(0);
    const scratch = /workspace: (\S+) \(scratch copy of the demo repository\)\n/.exec(
      stderr(),
    )?.[1];
    expect(scratch).toBeDefined();
    try {
      expect(stderr()).toContain(`see for yourself: cd ${scratch} && node check.mjs\n`);
      expect((await stat(scratch!)).isDirectory()).toBe(true);
      expect((await runDemoCheck(scratch!)).ok).toBe(true);
    } finally {
      await rm(scratch!, { recursive: true, force: true });
    }
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
    expect(await main(["--repo", path.basename(workspace), "fix the coupon bug"])).toBe(0);
    expect(stderr()).toContain(`workspace: ${workspace}\n`);
  });

  it("explains a bad command line", async () => {
    const stderr = capture(process.stderr);
    expect(await main(["--nope"])).toBe(2);
    expect(stderr()).toContain(USAGE);
  });
});
