import { readFile, rm } from "node:fs/promises";
import path from "node:path";
import { copyDemoRepo, runDemoCheck } from "@build-agent/shared/demo-repo";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { main } from "../src/main.ts";

let workspace: string;

beforeEach(async () => {
  workspace = await copyDemoRepo("ch10-demo-");
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

describe("chapter 10 demo: the scripted model fixes the coupon bug", () => {
  it("reads, patches, and the checks pass", async () => {
    expect((await runDemoCheck(workspace)).ok).toBe(false);
    const stdout = capture(process.stdout);
    capture(process.stderr);

    expect(await main(["--repo", workspace])).toBe(0);

    const cart = await readFile(path.join(workspace, "src/cart.mjs"));
    expect(cart.toString()).toContain("const goods = Math.max(0, subtotal(items) - couponCents);");
    const out = stdout();
    expect(out).toContain("→ read_file src/cart.mjs  ok\n");
    expect(out).toContain("→ apply_patch  Patch applied: M src/cart.mjs.");

    const check = await runDemoCheck(workspace);
    expect(check.output).toContain("all checks passed");
    expect(check.ok).toBe(true);
  });
});

describe("chapter 10 command line", () => {
  it("explains a bad option", async () => {
    const stderr = capture(process.stderr);
    expect(await main(["--nope"])).toBe(2);
    expect(stderr()).toContain('usage: pnpm chapter 10 -- "what to change" [--repo PATH]');
  });
});
