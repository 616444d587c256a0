// End to end: the offline demo exactly as a reader starts it, `pnpm start` from the
// repository root in a child process, with no model configured.
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runDemoCheck } from "../../shared/src/demo-repo.ts";
import { runCommand } from "../../shared/src/test-helpers.ts";
import { expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

it("pnpm start with no model configured fixes a scratch copy of the demo repository", async () => {
  const result = await runCommand("pnpm", ["start"], {
    cwd: ROOT,
    env: {
      NO_COLOR: "1",
      OPENAI_API_KEY: undefined,
      OPENAI_BASE_URL: undefined,
      AGENT_MODEL: undefined,
      INIT_CWD: undefined,
    },
    timeoutMs: 120_000,
  });
  expect(result.stderr).toContain("offline: no model configured");
  expect(result.code).toBe(0);

  const out = result.stdout;
  expect(out).toContain("── scripted demo (offline model, no AI) ──");
  expect(out).toContain("before: node check.mjs → fails");
  expect(out).toContain("→ apply_patch  Patch applied: M src/cart.mjs.");
  // The newest chapter's demo keeps a plan (chapter 24) and loads the demo repository's skill (25).
  expect(out).toContain("result: done\nplan: 3 of 3 done\nchanged files: M src/cart.mjs\n");
  expect(out).toContain('→ load_skill name="run-checks"  ok');
  expect(out).toContain("skills loaded: run-checks\n");
  expect(out).toContain("check: node check.mjs → all checks passed (7)\n");

  const workspace = /workspace: (\S+) \(scratch copy of the demo repository\)/.exec(out)?.[1];
  expect(workspace).toBeDefined();
  try {
    expect(await readFile(join(workspace!, "src/cart.mjs"), "utf8")).toContain(
      "  const goods = Math.max(0, subtotal(items) - couponCents);\n" +
        "  return Math.round(goods * (1 + taxRate));\n",
    );
    // Not just the harness's word for it: the demo's own check, run again here.
    expect((await runDemoCheck(workspace!)).ok).toBe(true);
  } finally {
    await rm(workspace!, { recursive: true, force: true });
  }
});
