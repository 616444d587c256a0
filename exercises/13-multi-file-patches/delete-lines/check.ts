// Exercise "Count what a Delete removes": the limit on changed lines counts the lines of every
// file a Delete removes; over the limit, the whole patch is refused with too_many_changes before
// anything is written, and stays the remaining_patch. A move removes no lines.
import assert from "node:assert/strict";
import { access, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

interface Result {
  success: boolean;
  files_changed: number;
  failures: Array<{ code: string; message: string }>;
  remaining_patch: string | null;
}
interface Engine {
  applyPatch(
    patch: string,
    options: { cwd: string; limits?: { maxFiles: number; maxChangedLines: number } },
  ): Promise<Result>;
}

const LIMITS = { maxFiles: 10, maxChangedLines: 5 };
const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}\n`).join("");
const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

export default async function check(chapterDir: string): Promise<void> {
  const { applyPatch } = (await import(
    pathToFileURL(join(chapterDir, "src/patch/apply-patch.ts")).href
  )) as Engine;
  const workspace = await mkdtemp(join(tmpdir(), "delete-lines-"));
  try {
    // 4 + 3 deleted lines, and one replaced line (1 removed, 1 added): 9 > 5.
    await writeFile(join(workspace, "big.txt"), lines(4));
    await writeFile(join(workspace, "more.txt"), lines(3));
    await writeFile(join(workspace, "keep.txt"), "old\n");
    const patch =
      "*** Begin Patch\n*** Delete File: big.txt\n*** Delete File: more.txt\n" +
      "*** Update File: keep.txt\n@@\n-old\n+new\n*** End Patch\n";
    const refused = await applyPatch(patch, { cwd: workspace, limits: LIMITS });
    assert.equal(
      refused.failures[0]?.code,
      "too_many_changes",
      `deleting 7 lines and replacing 1 is over a limit of 5 changed lines; got ${
        refused.success ? "success" : refused.failures.map((f) => f.code).join(", ")
      }`,
    );
    assert.match(
      refused.failures[0]!.message,
      /changes 9 lines/,
      "the message counts 4 + 3 deleted + 2 changed",
    );
    assert.equal(refused.files_changed, 0, "nothing may be written when the limit refuses");
    assert.ok(await exists(join(workspace, "big.txt")), "big.txt must not be deleted");
    assert.equal(await readFile(join(workspace, "keep.txt"), "utf8"), "old\n");
    assert.equal(
      refused.remaining_patch,
      patch,
      "the whole patch remains, as for the other limits",
    );

    // Within the limit: 3 deleted lines and 2 changed.
    const small =
      "*** Begin Patch\n*** Delete File: more.txt\n*** Update File: keep.txt\n@@\n-old\n+new\n*** End Patch\n";
    const applied = await applyPatch(small, { cwd: workspace, limits: LIMITS });
    assert.equal(applied.success, true, "3 deleted and 2 changed lines are within a limit of 5");

    // A move empties its source but removes no lines: it must not count as a delete.
    const move =
      "*** Begin Patch\n*** Update File: big.txt\n*** Move to: moved.txt\n@@\n-line 1\n+LINE 1\n*** End Patch\n";
    const moved = await applyPatch(move, { cwd: workspace, limits: LIMITS });
    assert.equal(
      moved.success,
      true,
      `a move of a 4-line file changing 1 line counts 2 changed lines, not its source's 4; got ${moved.failures
        .map((f) => f.message)
        .join("; ")}`,
    );
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}
