// Exercise "Say it was a partial read": after a read_file that left lines out, apply_patch's
// not_read refusal says the file was read only in part, and asks for a whole read. The guard
// itself does not move: a partial read still lets nothing through.
import assert from "node:assert/strict";
import { mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

interface Failure {
  path: string;
  code: string;
  message: string;
  hint: string;
}
interface Context {
  cwd: string;
  signal: AbortSignal;
  readRecord?: unknown;
}
interface Tool {
  execute(
    args: Record<string, unknown>,
    context: Context,
  ): Promise<{ ok: boolean; content: string; patch?: { failures: Failure[] } }>;
}

const patchOf = (file: string) =>
  `*** Begin Patch\n*** Update File: ${file}\n@@\n one\n-two\n+TWO\n*** End Patch\n`;

export default async function check(chapterDir: string): Promise<void> {
  const load = async <T>(path: string) =>
    (await import(pathToFileURL(join(chapterDir, path)).href)) as T;
  const { ReadRecord } = await load<{
    ReadRecord: new () => { lastSeen(path: string): string | undefined };
  }>("src/patch/hash-guard.ts");
  const { readFileTool } = await load<{ readFileTool: Tool }>("src/tools/read-file.ts");
  const { applyPatchTool } = await load<{ applyPatchTool: Tool }>("src/tools/apply-patch-tool.ts");

  const root = await realpath(await mkdtemp(join(tmpdir(), "partial-read-")));
  try {
    await writeFile(join(root, "a.txt"), "one\ntwo\nthree\n");
    await writeFile(join(root, "b.txt"), "one\ntwo\nthree\n");
    const record = new ReadRecord();
    const context: Context = {
      cwd: root,
      signal: new AbortController().signal,
      readRecord: record,
    };

    await readFileTool.execute({ path: "a.txt", offset: 1, limit: 2 }, context);
    assert.equal(
      record.lastSeen("a.txt"),
      undefined,
      "a partial read must not count as seen: lastSeen must stay undefined, or the guard lets it through",
    );
    const partly = await applyPatchTool.execute({ patch: patchOf("a.txt") }, context);
    const failure = partly.patch?.failures[0];
    assert.ok(failure, `the patch after a partial read must be refused; got: ${partly.content}`);
    assert.equal(failure.code, "not_read", "after a partial read the patch is still not_read");
    const said = `${failure.message} ${failure.hint}`;
    assert.match(
      said,
      /part/i,
      `the refusal should say a.txt was read only in part; it says: ${said}`,
    );
    assert.match(
      failure.hint,
      /offset|limit/,
      `the hint should ask for a read without offset or limit; it says: ${failure.hint}`,
    );
    assert.doesNotMatch(
      failure.message,
      /has not been read/,
      "the message should no longer claim the file has not been read at all",
    );
    assert.equal(
      await readFile(join(root, "a.txt"), "utf8"),
      "one\ntwo\nthree\n",
      "nothing may be written",
    );

    const never = await applyPatchTool.execute({ patch: patchOf("b.txt") }, context);
    const neverFailure = never.patch?.failures[0];
    assert.ok(neverFailure, `a patch of a file never read must be refused; got: ${never.content}`);
    assert.equal(neverFailure.code, "not_read");
    assert.doesNotMatch(
      `${neverFailure.message} ${neverFailure.hint}`,
      /part/i,
      "a file never read at all keeps the plain not_read refusal",
    );

    await readFileTool.execute({ path: "a.txt" }, context);
    const whole = await applyPatchTool.execute({ patch: patchOf("a.txt") }, context);
    assert.equal(whole.ok, true, `after a full read the patch applies; got: ${whole.content}`);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
