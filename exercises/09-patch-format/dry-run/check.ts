// Exercise "A dry run": applyPatch(text, { cwd, dryRun: true }) returns the result the patch
// would get, files_changed included, and writes nothing.
import assert from "node:assert/strict";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

interface ApplyPatchResult {
  success: boolean;
  files_changed: number;
  changed: Array<{ op: string; path: string }>;
  failures: Array<{ path: string; code: string }>;
}

interface Engine {
  applyPatch(
    patchText: string,
    options: { cwd: string; dryRun?: boolean },
  ): Promise<ApplyPatchResult>;
}

const PATCH = [
  "*** Begin Patch",
  "*** Update File: a.txt",
  "@@",
  "-one",
  "+ONE",
  "*** Add File: b.txt",
  "+new file",
  "*** Delete File: c.txt",
  "*** End Patch",
  "",
].join("\n");

export default async function check(chapterDir: string): Promise<void> {
  const engine = (await import(
    pathToFileURL(join(chapterDir, "src/patch/apply-patch.ts")).href
  )) as Engine;
  const workspace = await mkdtemp(join(tmpdir(), "dry-run-"));
  try {
    await writeFile(join(workspace, "a.txt"), "one\n");
    await writeFile(join(workspace, "c.txt"), "gone soon\n");

    const dry = await engine.applyPatch(PATCH, { cwd: workspace, dryRun: true });
    assert.equal(dry.success, true, `the dry run should succeed: ${JSON.stringify(dry.failures)}`);
    assert.equal(
      dry.files_changed,
      3,
      "a dry run reports the files that would change (3: updated, added, deleted)",
    );
    assert.deepEqual(
      (await readdir(workspace)).sort(),
      ["a.txt", "c.txt"],
      "a dry run must not add or delete files",
    );
    assert.equal(
      await readFile(join(workspace, "a.txt"), "utf8"),
      "one\n",
      "a dry run must not write a.txt",
    );

    const failed = await engine.applyPatch(PATCH.replace("-one", "-missing"), {
      cwd: workspace,
      dryRun: true,
    });
    assert.equal(failed.failures[0]?.code, "context_not_found", "a dry run still reports failures");

    const real = await engine.applyPatch(PATCH, { cwd: workspace });
    assert.equal(real.files_changed, 3, "without dryRun the patch is applied as before");
    assert.equal(await readFile(join(workspace, "a.txt"), "utf8"), "ONE\n");
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}
