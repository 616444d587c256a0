import { createHash } from "node:crypto";
import { readFile, rm } from "node:fs/promises";
import path from "node:path";
import { copyDemoRepo, runDemoCheck } from "@build-agent/shared/demo-repo";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { listRuns } from "../src/ledger/run-ledger.ts";
import { main } from "../src/main.ts";
import { NoteStore } from "../src/notes/note-store.ts";

let workspace: string;

beforeEach(async () => {
  workspace = await copyDemoRepo("ch16-demo-");
  // Offline, whatever the machine has configured.
  for (const name of ["OPENAI_API_KEY", "OPENAI_BASE_URL", "AGENT_MODEL"]) vi.stubEnv(name, "");
  vi.stubEnv("NO_COLOR", "1");
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

describe("chapter 17 demo: the scripted model fixes the coupon bug, on the record", () => {
  it("reads, patches, shows the diff and the new hash, and the checks pass", async () => {
    expect((await runDemoCheck(workspace)).ok).toBe(false);
    const stdout = capture(process.stdout);
    const stderr = capture(process.stderr);

    expect(await main(["--repo", workspace])).toBe(0);

    const cart = await readFile(path.join(workspace, "src/cart.mjs"));
    const newHash = createHash("sha256").update(cart).digest("hex");
    expect(cart.toString()).toContain("const goods = Math.max(0, subtotal(items) - couponCents);");
    const out = stdout();
    expect(out).toContain("→ read_file src/cart.mjs  ok\n");
    expect(out).toContain("→ apply_patch  Patch applied: M src/cart.mjs.");
    expect(out).toContain("--- a/src/cart.mjs\n+++ b/src/cart.mjs\n" + "@@ -9,10 +9,10 @@\n");
    expect(out).toContain(
      "-  const taxed = Math.round(subtotal(items) * (1 + taxRate));\n" +
        "-  return Math.max(0, taxed - couponCents);\n" +
        "+  const goods = Math.max(0, subtotal(items) - couponCents);\n" +
        "+  return Math.round(goods * (1 + taxRate));\n",
    );
    expect(out).toContain(`src/cart.mjs: sha256 ${newHash}\n`);

    const check = await runDemoCheck(workspace);
    expect(check.output).toContain("all checks passed");
    expect(check.ok).toBe(true);

    // The run is on the record, with a note, and says how to undo it.
    const [run] = await listRuns(workspace);
    expect(run).toMatchObject({ endReason: "done", undone: false });
    expect(run!.changedFiles.map((file) => file.path)).toEqual(["src/cart.mjs"]);
    const ledgerPath = path.join(workspace, ".agent", "runs", `${run!.runId}.jsonl`);
    expect(stderr()).toContain(
      `run ${run!.runId}: 1 file(s) changed, 2 tool call(s); ledger ${ledgerPath}\n` +
        `undo it: pnpm chapter 17 -- undo ${run!.runId} --repo ${workspace}\n`,
    );
    expect((await new NoteStore(workspace).list()).map((note) => note.title)).toEqual([
      "Patch applied",
    ]);
  });

  it("undo puts the file back, and a second undo finds nothing to do", async () => {
    const before = await readFile(path.join(workspace, "src/cart.mjs"));
    capture(process.stdout);
    capture(process.stderr);
    expect(await main(["--repo", workspace])).toBe(0);
    const [run] = await listRuns(workspace);
    vi.restoreAllMocks();

    const stdout = capture(process.stdout);
    const stderr = capture(process.stderr);
    expect(await main(["undo", "--repo", workspace])).toBe(0);
    expect(stdout()).toBe(`Undid run ${run!.runId}: restored src/cart.mjs.\n`);
    expect(await readFile(path.join(workspace, "src/cart.mjs"))).toEqual(before);

    expect(await main(["undo", "--repo", workspace])).toBe(1);
    expect(stderr()).toContain("Nothing to undo: no run recorded in");
  });
});

describe("chapter 17 command line", () => {
  it("--print-prompt prints the system prompt of a workspace and its token count", async () => {
    const stdout = capture(process.stdout);
    expect(await main(["--print-prompt", "--repo", workspace])).toBe(0);
    const out = stdout();
    expect(out).toMatch(/^You are a coding agent working inside one software project/);
    expect(out).toContain(`- Workspace root: ${workspace} (every path you use is relative to it)`);
    // The demo repository's AGENTS.md is part of the prompt.
    expect(out).toContain("# Project instructions (AGENTS.md)");
    expect(out).toMatch(
      /\n-- system prompt: \d+ tokens \(o200k_base\) --\n-- tools: \d+ tokens \(list_files \d+, read_file \d+, search_text \d+, apply_patch \d+, note \d+\) --\n-- \d+ tokens in all, sent with every model call --\n$/,
    );
  });

  it("explains a bad option", async () => {
    const stderr = capture(process.stderr);
    expect(await main(["--nope"])).toBe(2);
    expect(stderr()).toContain(
      'usage: pnpm chapter 17 -- "what to change" [--repo PATH]\n' +
        "       pnpm chapter 17 -- --print-prompt [--repo PATH]\n" +
        "       pnpm chapter 17 -- undo [RUN_ID] [--repo PATH]",
    );
    expect(await main(["undo", "a", "b"])).toBe(2);
    expect(stderr()).toContain("undo takes at most one RUN_ID.");
  });

  it("refuses a --repo that is not a folder, and creates nothing there", async () => {
    const stderr = capture(process.stderr);
    const missing = path.join(workspace, "no-such-folder");
    for (const args of [["fix it"], ["--print-prompt"], ["undo"]]) {
      expect(await main([...args, "--repo", missing])).toBe(2);
    }
    expect(stderr()).toContain(
      `--repo ${missing}: no such folder; pass the folder of a repository`,
    );
    await expect(readFile(path.join(missing, ".agent", "runs"))).rejects.toThrow(/ENOENT/);
  });
});
