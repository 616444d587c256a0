// Exercise "Resume, when the branch moved": run_start records the workspace's git HEAD, and
// resume refuses a run whose workspace has moved to another commit since, naming both commits.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

interface Ledger {
  runId: string;
  finish(reason: string): Promise<void>;
}
interface LedgerModule {
  RunLedger: { open(cwd: string, start: { task: string; model: string }): Promise<Ledger> };
}
interface ResumeModule {
  prepareResume(cwd: string, runId?: string): Promise<{ runId: string; message: string }>;
}

const load = <T>(chapterDir: string, file: string) =>
  import(pathToFileURL(join(chapterDir, file)).href) as Promise<T>;

export default async function check(chapterDir: string): Promise<void> {
  const { RunLedger } = await load<LedgerModule>(chapterDir, "src/ledger/run-ledger.ts");
  const { prepareResume } = await load<ResumeModule>(chapterDir, "src/compaction/resume-run.ts");

  const root = await mkdtemp(join(tmpdir(), "head-moved-"));
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], {
      cwd: root,
      encoding: "utf8",
    }).trim();
  try {
    git("init", "--quiet");
    await writeFile(join(root, "a.txt"), "one\n");
    git("add", "a.txt");
    git("commit", "--quiet", "-m", "one");
    const first = git("rev-parse", "HEAD");

    const ledger = await RunLedger.open(root, { task: "fix the total", model: "test" });
    await ledger.finish("budget");
    const same = await prepareResume(root, ledger.runId);
    assert.equal(same.runId, ledger.runId, "on the same commit, the run can be resumed");

    await writeFile(join(root, "a.txt"), "two\n");
    git("commit", "--quiet", "-am", "two");
    const second = git("rev-parse", "HEAD");
    let refusal: unknown;
    try {
      await prepareResume(root, ledger.runId);
    } catch (error) {
      refusal = error;
    }
    assert.ok(refusal instanceof Error, "after a new commit, resume should refuse the run");
    assert.equal(refusal.name, "ResumeRefusedError", `refused as a ResumeRefusedError: ${refusal}`);
    for (const commit of [first, second]) {
      assert.ok(
        refusal.message.includes(commit.slice(0, 12)),
        `the refusal should name both commits (first 12 hex digits), ${commit.slice(0, 12)} among them: ${refusal.message}`,
      );
    }

    git("checkout", "--quiet", first);
    const back = await prepareResume(root, ledger.runId);
    assert.equal(back.runId, ledger.runId, "back on the run's commit, it can be resumed again");
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
