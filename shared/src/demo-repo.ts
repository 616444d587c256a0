// The demo repository (shared/demo-repo): a tiny project with one real bug, for the
// agent to work on. Demos and tests always work on a scratch copy, never the original.

import { cp, mkdtemp, realpath } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runCommand } from "./test-helpers.ts";

/** Absolute path of shared/demo-repo. */
export const DEMO_REPO_DIR = fileURLToPath(new URL("../demo-repo", import.meta.url));

/**
 * Copies the demo repository into a fresh folder under the OS temp dir and returns
 * its real path (resolved, so workspace checks that compare real paths agree with it).
 */
export async function copyDemoRepo(prefix = "demo-repo-"): Promise<string> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), prefix)));
  await cp(DEMO_REPO_DIR, dir, { recursive: true });
  return dir;
}

/** Runs `node check.mjs` in `dir`; `ok` is true when every check passed (exit 0). */
export async function runDemoCheck(dir: string): Promise<{ ok: boolean; output: string }> {
  const result = await runCommand(process.execPath, ["check.mjs"], { cwd: dir });
  return { ok: result.code === 0, output: result.stdout + result.stderr };
}
