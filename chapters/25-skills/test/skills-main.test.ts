// Skills as a person meets them: `main` finds them at the start of the run, says which it
// skipped and why, lists the rest in the prompt, and the model loads one through the real SDK.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { copyDemoRepo } from "@build-agent/shared/demo-repo";
import { loadScript, startOfflineModel } from "@build-agent/shared/offline-model";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { sha256 } from "../src/fs/file-hash.ts";
import { listRuns, RunLedger } from "../src/ledger/run-ledger.ts";
import { main } from "../src/main.ts";
import { skillText, writeSkill } from "./skills-fixtures.ts";

let workspace: string;
let home: string;
beforeEach(async () => {
  workspace = await copyDemoRepo("ch25-skills-");
  home = await mkdtemp(join(tmpdir(), "ch25-home-")); // never the real home
  vi.stubEnv("NO_COLOR", "1");
  vi.stubEnv("HOME", home);
});
afterEach(async () => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
  await rm(workspace, { recursive: true, force: true });
  await rm(home, { recursive: true, force: true });
});

interface AgentRun {
  code: number;
  stdout: string;
  stderr: string;
  /** The system prompt of the model's first request. */
  prompt: unknown;
}

async function runAgent(): Promise<AgentRun> {
  const offline = await startOfflineModel({ script: loadScript("fix-bug-skilled") });
  vi.stubEnv("OPENAI_BASE_URL", offline.baseURL);
  vi.stubEnv("OPENAI_API_KEY", offline.apiKey);
  vi.stubEnv("AGENT_MODEL", offline.model);
  let stdout = "";
  let stderr = "";
  vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
    stdout += String(chunk);
    return true;
  });
  vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  });
  try {
    const args = ["--allow-command", "node check.mjs", "--repo", workspace, "Fix the coupon."];
    const code = await main(args);
    return { code, stdout, stderr, prompt: offline.requests[0]?.messages[0]?.content };
  } finally {
    vi.mocked(process.stdout.write).mockRestore();
    vi.mocked(process.stderr.write).mockRestore();
    await offline.close();
  }
}

describe("skills in a run", () => {
  it("says which skill it skipped and why, and the run goes on and loads the other", async () => {
    await writeSkill(workspace, ".agents/skills", "deploy", skillText("name: deploy"));
    await writeSkill(home, ".agents/skills", "run-checks"); // the workspace's wins

    const run = await runAgent();
    expect(run.code).toBe(0);
    expect(run.prompt).toContain("- run-checks: How this project runs its checks");
    expect(run.prompt).not.toContain("- deploy");
    expect(run.stderr).toContain(
      'skipped skill .agents/skills/deploy/SKILL.md: its front matter has no "description": add one line saying when to use this skill\n',
    );
    expect(run.stderr).toContain(
      'skipped skill ~/.agents/skills/run-checks/SKILL.md: the name "run-checks" is taken by .agents/skills/run-checks/SKILL.md, which is used: rename one of them\n',
    );
    expect(run.stdout).toContain("\nskills loaded: run-checks\n");

    const [recorded] = await listRuns(workspace);
    const events = (await RunLedger.load(workspace, recorded!.runId)).events();
    const skillMd = await readFile(join(workspace, ".agents/skills/run-checks/SKILL.md"));
    expect(events.filter((event) => event.type === "skill_loaded")).toMatchObject([
      { name: "run-checks", path: ".agents/skills/run-checks/SKILL.md", sha256: sha256(skillMd) },
    ]);
  });
});
