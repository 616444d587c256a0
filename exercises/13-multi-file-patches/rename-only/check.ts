// Exercise "A rename without changes": "*** Update File: a" + "*** Move to: b" with no hunks
// renames the file, its bytes exactly as they were; an Update with neither a Move nor hunks is
// still refused as empty.
import assert from "node:assert/strict";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

interface Result {
  success: boolean;
  changed: Array<{ op: string; path: string; from?: string }>;
  failures: Array<{ code: string; message: string }>;
}
interface Engine {
  applyPatch(patch: string, options: { cwd: string }): Promise<Result>;
}
interface Limits {
  countChangedLines(op: unknown): number;
}
interface Parser {
  parsePatch(patch: string): { operations: unknown[] };
}

const RENAME = "*** Begin Patch\n*** Update File: a.ts\n*** Move to: lib/b.ts\n*** End Patch\n";
// No final newline and CRLF line breaks: a rename must not touch either.
const BYTES = "export const a = 1;\r\nexport const b = 2;";

export default async function check(chapterDir: string): Promise<void> {
  const load = async <T>(file: string) =>
    (await import(pathToFileURL(join(chapterDir, "src/patch", file)).href)) as T;
  const engine = await load<Engine>("apply-patch.ts");
  const parser = await load<Parser>("parse-patch.ts");
  const limits = await load<Limits>("patch-limits.ts");

  const workspace = await mkdtemp(join(tmpdir(), "rename-only-"));
  try {
    await writeFile(join(workspace, "a.ts"), BYTES);
    const result = await engine.applyPatch(RENAME, { cwd: workspace });
    assert.equal(
      result.success,
      true,
      `a Move with no hunks should rename the file; it failed: ${result.failures
        .map((f) => `${f.code}: ${f.message}`)
        .join("; ")}`,
    );
    assert.deepEqual(
      result.changed.map((c) => [c.op, c.path, c.from]),
      [["move", "lib/b.ts", "a.ts"]],
      "the result should report one move from a.ts to lib/b.ts",
    );
    const files = (await readdir(workspace)).filter((name) => name !== ".agent");
    assert.deepEqual(files, ["lib"], "a.ts should be gone");
    assert.equal(
      await readFile(join(workspace, "lib/b.ts"), "utf8"),
      BYTES,
      "the renamed file must keep its bytes exactly: no final newline added, CRLF kept",
    );

    const [op] = parser.parsePatch(RENAME).operations;
    assert.equal(limits.countChangedLines(op), 0, "a plain rename changes no lines");

    const empty = await engine.applyPatch(
      "*** Begin Patch\n*** Update File: lib/b.ts\n*** End Patch\n",
      { cwd: workspace },
    );
    assert.equal(
      empty.failures[0]?.code,
      "invalid_patch",
      "an Update with neither a Move nor hunks is still an empty update, refused",
    );
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}
