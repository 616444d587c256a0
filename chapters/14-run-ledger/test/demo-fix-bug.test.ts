import { createHash } from "node:crypto";
import { readFile, readdir, rm } from "node:fs/promises";
import path from "node:path";
import { copyDemoRepo, runDemoCheck } from "@build-agent/shared/demo-repo";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { main } from "../src/main.ts";

let workspace: string;

beforeEach(async () => {
  workspace = await copyDemoRepo("ch14-demo-");
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

describe("chapter 14 demo: the scripted model fixes the coupon bug, on the record", () => {
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

    // The run is on the record, under the same id as its backups.
    const [ledgerFile] = await readdir(path.join(workspace, ".agent", "runs"));
    const runId = ledgerFile!.slice(0, -".jsonl".length);
    const ledgerPath = path.join(workspace, ".agent", "runs", ledgerFile!);
    const events = (await readFile(ledgerPath, "utf8"))
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; path?: string; reason?: string });
    expect(events.filter((event) => event.type === "file_written")).toMatchObject([
      { path: "src/cart.mjs", after_sha256: newHash },
    ]);
    expect(events.at(-1)).toMatchObject({ type: "run_end", reason: "done" });
    const err = stderr();
    expect(err).toContain(`backups: ${workspace}/.agent/backups/${runId}\n`);
    expect(err).toContain(
      `run ${runId}: 1 file(s) changed, 2 tool call(s); ledger ${ledgerPath}\n`,
    );
  });
});

describe("chapter 14 command line", () => {
  it("explains a bad option", async () => {
    const stderr = capture(process.stderr);
    expect(await main(["--nope"])).toBe(2);
    expect(stderr()).toContain('usage: pnpm chapter 14 -- "what to change" [--repo PATH]');
  });
});
