import { rm } from "node:fs/promises";
import path from "node:path";
import { copyDemoRepo, runDemoCheck } from "@build-agent/shared/demo-repo";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { listRuns } from "../src/ledger/run-ledger.ts";
import { USAGE } from "../src/loop/cli-args.ts";
import { main } from "../src/main.ts";

let workspace: string;

beforeEach(async () => {
  workspace = await copyDemoRepo("ch19-main-");
  // Offline, whatever the machine has configured.
  for (const name of ["OPENAI_API_KEY", "OPENAI_BASE_URL", "AGENT_MODEL"]) vi.stubEnv(name, "");
  vi.stubEnv("NO_COLOR", "1");
  vi.stubEnv("INIT_CWD", workspace);
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

describe("chapter 19 command line", () => {
  it("explains bad options and bad budgets", async () => {
    const stderr = capture(process.stderr);
    expect(await main(["--nope"])).toBe(2);
    expect(stderr()).toContain(USAGE);
    expect(await main(["--max-steps", "0", "task"])).toBe(2);
    expect(stderr()).toContain('--max-steps must be a whole number of at least 1, got "0"');
    expect(await main(["--max-time", "soon", "task"])).toBe(2);
    expect(stderr()).toContain(
      '--max-time must be seconds or minutes like 90, 90s or 5m, got "soon"',
    );
    expect(await main(["undo", "the", "last", "change"])).toBe(2);
    expect(stderr()).toContain(
      'undo takes at most one RUN_ID; for a task that starts with "undo", quote it: pnpm chapter 19 -- "undo …"',
    );
    expect(await main(["--repo", path.join(workspace, "nope"), "task"])).toBe(2);
    expect(stderr()).toContain("is not a folder: point --repo at the repository to work on");
  });

  it("--help prints the usage on stdout", async () => {
    const stdout = capture(process.stdout);
    expect(await main(["--help"])).toBe(0);
    expect(stdout()).toBe(USAGE + "\n");
  });

  it("--print-prompt prints the prompt for the workspace", async () => {
    const stdout = capture(process.stdout);
    expect(await main(["--print-prompt"])).toBe(0);
    expect(stdout()).toContain(
      `- Workspace root: ${workspace} (every path you use is relative to it)`,
    );
    expect(stdout()).toMatch(
      /\n-- system prompt: \d+ tokens \(o200k_base\) --\n-- tools: \d+ tokens \(list_files \d+, read_file \d+, search_text \d+, apply_patch \d+, note \d+\) --\n-- \d+ tokens in all, sent with every model call --\n$/,
    );
  });

  it("undo (chapter 15) still works on a run of the loop", async () => {
    // A run of the loop on this workspace, through the offline model's fix-bug script.
    const { loopFixture } = await import("./loop-harness.ts");
    const fixture = await loopFixture("fix-bug");
    try {
      const run = await fixture.run();
      expect((await runDemoCheck(fixture.workspace)).ok).toBe(true);
      const stdout = capture(process.stdout);
      expect(await main(["undo", "--repo", fixture.workspace])).toBe(0);
      expect(stdout()).toBe(`Undid run ${run.ledger.runId}: restored src/cart.mjs.\n`);
      expect((await runDemoCheck(fixture.workspace)).ok).toBe(false);
      const [recorded] = await listRuns(fixture.workspace);
      expect(recorded).toMatchObject({ endReason: "done", undone: true });
    } finally {
      await fixture.close();
    }
  });
});
