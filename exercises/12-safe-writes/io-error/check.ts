// Exercise "Crash between the steps": an error that is not the patch's fault (here thrown from
// beforeCommit, after the new bytes are staged) comes back as an io_error failure instead of an
// exception, and the workspace is exactly as before: no temp file, no new folder, no backup.
import assert from "node:assert/strict";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

interface Result {
  success: boolean;
  files_changed: number;
  failures: { path: string; code: string; message: string; hint: string }[];
}
interface Engine {
  applyPatch(
    patch: string,
    options: { cwd: string; beforeCommit?: () => Promise<void> | void },
  ): Promise<Result>;
}

const PATCH = [
  "*** Begin Patch",
  "*** Update File: a.txt",
  "@@",
  "-one",
  "+ONE",
  "*** Add File: new/deep/b.txt",
  "+b",
  "*** End Patch",
  "",
].join("\n");

/** Every file and folder under root, hidden ones (.agent/, temp files) included. */
async function listing(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true });
  return entries.map(String).sort();
}

export default async function check(chapterDir: string): Promise<void> {
  const engine = (await import(
    pathToFileURL(join(chapterDir, "src/patch/apply-patch.ts")).href
  )) as Engine;
  const root = await mkdtemp(join(tmpdir(), "io-error-"));
  try {
    await writeFile(join(root, "a.txt"), "one\n");
    const before = await listing(root);

    let result: Result;
    try {
      result = await engine.applyPatch(PATCH, {
        cwd: root,
        beforeCommit: () => {
          throw new Error("ENOSPC: no space left on device (simulated)");
        },
      });
    } catch (error) {
      assert.fail(
        `applyPatch threw (${String(error)}); a disk error should come back as an io_error failure`,
      );
    }
    assert.equal(result.success, false, "the patch must not succeed");
    assert.equal(result.files_changed, 0);
    const failure = result.failures[0];
    assert.ok(failure, "the result should have one failure");
    assert.equal(
      failure.code,
      "io_error",
      `the failure's code should be io_error, not ${failure.code}`,
    );
    assert.match(
      failure.message,
      /no space left on device/,
      "the message should carry the error's own reason",
    );
    assert.ok(failure.hint.length > 0, "an io_error needs a hint, like every failure");

    assert.deepEqual(
      await listing(root),
      before,
      "the workspace must be exactly as before: no temp file, no new folder, no .agent/ backups",
    );
    assert.equal(await readFile(join(root, "a.txt"), "utf8"), "one\n", "a.txt must be unchanged");
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
