// Exercise "A file with two names": an atomic write replaces the file's inode, so a file with a
// hard link would be split in two. apply_patch refuses to rewrite such a file (Update, or Add
// over it) with disallowed_path; deleting one of its names is still allowed.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { link, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

interface Result {
  success: boolean;
  failures: { path: string; code: string; message: string; hint: string }[];
}
interface Engine {
  applyPatch(
    patch: string,
    options: { cwd: string; expect?: (path: string) => string | undefined },
  ): Promise<Result>;
}

const patchOf = (...lines: string[]) =>
  ["*** Begin Patch", ...lines, "*** End Patch", ""].join("\n");
const hashOf = (text: string) => createHash("sha256").update(text).digest("hex");

export default async function check(chapterDir: string): Promise<void> {
  const { applyPatch } = (await import(
    pathToFileURL(join(chapterDir, "src/patch/apply-patch.ts")).href
  )) as Engine;
  const root = await mkdtemp(join(tmpdir(), "hard-links-"));
  try {
    await writeFile(join(root, "a.txt"), "one\n");
    await link(join(root, "a.txt"), join(root, "b.txt"));
    await writeFile(join(root, "c.txt"), "one\n");
    const unchanged = async (why: string) => {
      assert.equal(await readFile(join(root, "a.txt"), "utf8"), "one\n", why);
      assert.equal(await readFile(join(root, "b.txt"), "utf8"), "one\n", why);
    };

    const update = await applyPatch(patchOf("*** Update File: a.txt", "@@", "-one", "+ONE"), {
      cwd: root,
    });
    const failure = update.failures[0];
    assert.ok(
      failure,
      "updating a.txt, which has a second name b.txt, must be refused: the rename would leave b.txt with the old bytes",
    );
    assert.equal(
      failure.code,
      "disallowed_path",
      `the refusal should be disallowed_path, not ${failure.code}`,
    );
    assert.match(
      failure.message,
      /link/i,
      `the message should say the file is hard-linked; it says: ${failure.message}`,
    );
    await unchanged("a refused update writes nothing");
    assert.deepEqual(
      (await readdir(root)).sort(),
      ["a.txt", "b.txt", "c.txt"],
      "no temp file or backup may be left behind",
    );

    const addOver = await applyPatch(patchOf("*** Add File: a.txt", "+new"), {
      cwd: root,
      expect: (path) => (path === "a.txt" ? hashOf("one\n") : undefined),
    });
    assert.equal(
      addOver.failures[0]?.code,
      "disallowed_path",
      "Add over a hard-linked file rewrites it too, and must be refused the same way",
    );
    await unchanged("a refused Add writes nothing");

    const plain = await applyPatch(patchOf("*** Update File: c.txt", "@@", "-one", "+ONE"), {
      cwd: root,
    });
    assert.equal(plain.success, true, "a file with one name is patched as before");

    const remove = await applyPatch(patchOf("*** Delete File: b.txt"), { cwd: root });
    assert.equal(remove.success, true, "deleting one name of a hard-linked file is fine");
    assert.equal(await readFile(join(root, "a.txt"), "utf8"), "one\n");
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
