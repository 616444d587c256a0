// End to end: Ctrl-C in a terminal, through the root command. A terminal sends SIGINT to every
// process of the foreground group at once (pnpm, node), so this test does the same. One press
// must stop the run cleanly: the summary printed, the ledger closed as aborted, exit code 130.
import { spawn } from "node:child_process";
import { readdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, expect, it } from "vitest";
import { copyDemoRepo } from "../../shared/src/demo-repo.ts";
import {
  loadScript,
  startOfflineModel,
  type OfflineModel,
} from "../../shared/src/offline-model/index.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

let model: OfflineModel | undefined;
let workspace: string | undefined;
afterEach(async () => {
  await model?.close();
  if (workspace) await rm(workspace, { recursive: true, force: true });
});

it("one Ctrl-C during `pnpm start -- --repo PATH task` stops the run and closes its ledger", async () => {
  workspace = await copyDemoRepo("e2e-ctrl-c-");
  // Configured like a real model; slow chunks keep the answer streaming when Ctrl-C comes.
  model = await startOfflineModel({ script: loadScript("fix-bug"), chunkDelayMs: 200 });
  const child = spawn("pnpm", ["start", "--", "--repo", workspace, "fix the coupon bug"], {
    cwd: ROOT,
    // Its own process group, so the whole group can be signalled as a terminal would.
    detached: true,
    env: {
      ...process.env,
      NO_COLOR: "1",
      OPENAI_BASE_URL: model.baseURL,
      OPENAI_API_KEY: model.apiKey,
      AGENT_MODEL: model.model,
      INIT_CWD: undefined,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let pressed = false;
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
    // Ctrl-C once the model's second answer is streaming.
    if (!pressed && stdout.includes("→ read_file src/cart.mjs")) {
      pressed = true;
      process.kill(-child.pid!, "SIGINT");
    }
  });
  child.stderr.resume();
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));

  expect(pressed).toBe(true);
  expect(stdout).toContain("result: stopped: you pressed Ctrl-C\nchanged files: none\n");
  const runs = await readdir(join(workspace, ".agent", "runs"));
  expect(runs).toHaveLength(1);
  const lines = (await readFile(join(workspace, ".agent", "runs", runs[0]!), "utf8"))
    .trimEnd()
    .split("\n");
  expect(JSON.parse(lines.at(-1)!)).toMatchObject({ type: "run_end", reason: "aborted" });
  // pnpm reports the interrupted script as failed; the agent's own code is 130.
  expect(code).not.toBe(0);
}, 60_000);
