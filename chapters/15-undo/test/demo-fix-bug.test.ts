import { createHash } from "node:crypto";
import { readFile, rm } from "node:fs/promises";
import path from "node:path";
import { copyDemoRepo, runDemoCheck } from "@build-agent/shared/demo-repo";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { listRuns } from "../src/ledger/run-ledger.ts";
import { main } from "../src/main.ts";

let workspace: string;

beforeEach(async () => {
  workspace = await copyDemoRepo("ch15-demo-");
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

describe("chapter 15 demo: the scripted model fixes the coupon bug, on the record", () => {
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

    // The run is on the record, and says how to undo it.
    const [run] = await listRuns(workspace);
    expect(run).toMatchObject({ endReason: "done", undone: false });
    expect(run!.changedFiles.map((file) => file.path)).toEqual(["src/cart.mjs"]);
    const ledgerPath = path.join(workspace, ".agent", "runs", `${run!.runId}.jsonl`);
    expect(stderr()).toContain(
      `run ${run!.runId}: 1 file(s) changed, 2 tool call(s); ledger ${ledgerPath}\n` +
        `undo it: pnpm chapter 15 -- undo ${run!.runId} --repo ${workspace}\n`,
    );
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

describe("chapter 15 command line", () => {
  it("explains a bad option", async () => {
    const stderr = capture(process.stderr);
    expect(await main(["--nope"])).toBe(2);
    expect(stderr()).toContain(
      'usage: pnpm chapter 15 -- "what to change" [--repo PATH]\n' +
        "       pnpm chapter 15 -- undo [RUN_ID] [--repo PATH]",
    );
    expect(await main(["undo", "a", "b"])).toBe(2);
    expect(stderr()).toContain("undo takes at most one RUN_ID.");
  });
});
