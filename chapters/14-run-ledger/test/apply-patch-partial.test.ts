import { describe, expect, it } from "vitest";
import { applyPatch } from "../src/patch/apply-patch.ts";
import { patch, sha256, tree, workspace } from "./apply-patch-fixtures.ts";

const AMBIGUOUS = "x = 1\nother\nx = 1\n";

describe("failure and partial success", () => {
  it("writes the clean file, reports the ambiguous one, and its remaining_patch completes the work", async () => {
    const root = await workspace({ "a.txt": AMBIGUOUS, "b.txt": "old\n" });
    const both = patch(
      "*** Update File: a.txt",
      "@@",
      "-x = 1",
      "+x = 2",
      "*** Update File: b.txt",
      "@@",
      "-old",
      "+new",
    );
    const result = await applyPatch(both, { cwd: root });
    expect(result.success).toBe(false);
    expect(result.files_changed).toBe(1);
    expect(result.changed).toEqual([
      {
        op: "update",
        path: "b.txt",
        sha256: sha256("new\n"),
        previous_sha256: sha256("old\n"),
        matched: ["exact"],
      },
    ]);
    expect(result.failures).toEqual([
      {
        path: "a.txt",
        code: "ambiguous_context",
        message:
          "Hunk 1 of a.txt matches 2 places (lines 1 and 3); it was not applied, to avoid changing the wrong one.",
        hint:
          "Add unchanged lines above or below the change that occur only at the intended place, " +
          "or an '@@' anchor line that is unique in the file.",
      },
    ]);
    expect(result.remaining_patch).toBe(patch("*** Update File: a.txt", "@@", "-x = 1", "+x = 2"));
    expect(await tree(root)).toEqual({ "a.txt": AMBIGUOUS, "b.txt": "new\n" });

    // Fix the cause (remove the duplicate), then apply what remained.
    await applyPatch(patch("*** Update File: a.txt", "@@", " other", "-x = 1"), { cwd: root });
    const retry = await applyPatch(result.remaining_patch!, { cwd: root });
    expect(retry.success).toBe(true);
    expect(await tree(root)).toEqual({ "a.txt": "x = 2\nother\n", "b.txt": "new\n" });
  });

  it("leaves a file untouched when a later hunk in its chain fails", async () => {
    const root = await workspace({ "f.txt": "one\ntwo\nthree\n" });
    const chain = patch("*** Update File: f.txt", "@@", "-one", "+ONE", "@@", "-missing", "+nope");
    const result = await applyPatch(chain, { cwd: root });
    expect(result.failures).toEqual([
      {
        path: "f.txt",
        code: "context_not_found",
        message:
          "Hunk 2 of f.txt does not match the file: its context and removed lines were not found after line 1.\nmissing",
        hint:
          "Read the file again and copy the unchanged (' ') and removed ('-') lines exactly as they " +
          "are now; hunks for one file must appear in file order.",
      },
    ]);
    expect(result.changed).toEqual([]);
    expect(result.remaining_patch).toBe(chain);
    expect(await tree(root, true)).toEqual({ "f.txt": "one\ntwo\nthree\n" });
  });

  it("chains repeated updates of one file in memory, all or nothing", async () => {
    const root = await workspace({ "f.txt": "one\ntwo\n", "g.txt": "g\n" });
    const twice = patch(
      "*** Update File: f.txt",
      "@@",
      "-one",
      "+ONE",
      "*** Update File: g.txt",
      "@@",
      "-g",
      "+G",
      "*** Update File: f.txt",
      "@@",
      "-ONE",
      "+1",
    );
    const ok = await applyPatch(twice, { cwd: root });
    expect(ok.success).toBe(true);
    expect(ok.changed.map((c) => [c.op, c.path, c.sha256])).toEqual([
      ["update", "f.txt", sha256("1\ntwo\n")],
      ["update", "g.txt", sha256("G\n")],
      ["update", "f.txt", sha256("1\ntwo\n")],
    ]);
    expect(ok.files_changed).toBe(2);

    const failing = patch(
      "*** Update File: f.txt",
      "@@",
      "-1",
      "+uno",
      "*** Update File: f.txt",
      "@@",
      "-absent",
      "+x",
    );
    const result = await applyPatch(failing, { cwd: root });
    expect(result.remaining_patch).toBe(failing);
    expect(await tree(root)).toEqual({ "f.txt": "1\ntwo\n", "g.txt": "G\n" });
  });

  it("with atomic, writes nothing unless every file succeeds", async () => {
    const root = await workspace({ "a.txt": AMBIGUOUS, "b.txt": "old\n" });
    const both = patch(
      "*** Update File: b.txt",
      "@@",
      "-old",
      "+new",
      "*** Update File: a.txt",
      "@@",
      "-x = 1",
      "+x = 2",
    );
    const result = await applyPatch(both, { cwd: root, atomic: true });
    expect(result.success).toBe(false);
    expect(result.changed).toEqual([]);
    expect(result.files_changed).toBe(0);
    expect(result.remaining_patch).toBe(both);
    expect(result.notes).toEqual([
      "--atomic: no file was written because another file in the patch failed.",
    ]);
    expect(await tree(root)).toEqual({ "a.txt": AMBIGUOUS, "b.txt": "old\n" });
  });

  it("moves a file, keeping the rest of the folder", async () => {
    const root = await workspace({ "old/name.txt": "old content\n", "old/other.txt": "o\n" });
    const result = await applyPatch(
      patch(
        "*** Update File: old/name.txt",
        "*** Move to: renamed/dir/name.txt",
        "@@",
        "-old content",
        "+new content",
      ),
      { cwd: root },
    );
    expect(result.changed).toEqual([
      {
        op: "move",
        path: "renamed/dir/name.txt",
        from: "old/name.txt",
        sha256: sha256("new content\n"),
        previous_sha256: sha256("old content\n"),
        matched: ["exact"],
      },
    ]);
    expect(result.files_changed).toBe(2);
    expect(await tree(root)).toEqual({
      "old/other.txt": "o\n",
      "renamed/dir/name.txt": "new content\n",
    });
  });
});

describe("refusals from the state of a file", () => {
  it("file_not_found for Update or Delete of a missing file", async () => {
    const root = await workspace({ "keep.txt": "k\n" });
    const update = await applyPatch(patch("*** Update File: missing.txt", "@@", "-old", "+new"), {
      cwd: root,
    });
    expect(update.failures).toEqual([
      {
        path: "missing.txt",
        code: "file_not_found",
        message: "Cannot update missing.txt: the file does not exist.",
        hint: 'Check the path with list_files, or create the file with "*** Add File: missing.txt".',
      },
    ]);
    const del = await applyPatch(patch("*** Delete File: missing.txt"), { cwd: root });
    expect(del.failures).toEqual([
      {
        path: "missing.txt",
        code: "file_not_found",
        message: "Cannot delete missing.txt: the file does not exist.",
        hint: "Check the path with list_files; if the file is already gone, drop this Delete File from the patch.",
      },
    ]);
    expect(await tree(root)).toEqual({ "keep.txt": "k\n" });
  });

  it("refuses to delete a directory", async () => {
    const root = await workspace({ "dir/foo.txt": "f\n" });
    const result = await applyPatch(patch("*** Delete File: dir"), { cwd: root });
    expect(result.failures).toEqual([
      {
        path: "dir",
        code: "file_not_found",
        message: "Cannot delete dir: it is a directory, and apply_patch works on single files.",
        hint: "Delete the files inside it one by one, each with its own Delete File.",
      },
    ]);
    const add = await applyPatch(patch("*** Add File: dir", "+x"), { cwd: root });
    expect(add.failures).toEqual([
      {
        path: "dir",
        code: "file_not_found",
        message: "Cannot add dir: it is a directory, and apply_patch works on single files.",
        hint: "Name a file, not a directory.",
      },
    ]);
    expect(await tree(root)).toEqual({ "dir/foo.txt": "f\n" });
  });

  it("reports a malformed patch as one invalid_patch failure with no remaining patch", async () => {
    const root = await workspace({ "foo.txt": "x\n" });
    const result = await applyPatch("*** Begin Patch\n*** Frobnicate File: foo\n*** End Patch\n", {
      cwd: root,
    });
    expect(result.success).toBe(false);
    expect(result.failures).toHaveLength(1);
    expect(result.failures[0]).toMatchObject({ path: "", code: "invalid_patch" });
    expect(result.remaining_patch).toBeNull();
    expect(await tree(root, true)).toEqual({ "foo.txt": "x\n" });
  });

  it("refuses a patch with no operations", async () => {
    const root = await workspace({ "foo.txt": "x\n" });
    const result = await applyPatch("*** Begin Patch\n*** End Patch\n", { cwd: root });
    expect(result.success).toBe(false);
    expect(result.failures[0]!.code).toBe("invalid_patch");
    expect(result.remaining_patch).toBeNull();
  });
});

describe("limits", () => {
  it("refuses more files than allowed, before writing anything", async () => {
    const root = await workspace();
    const adds = Array.from({ length: 11 }, (_, i) => [`*** Add File: f${i}.txt`, "+x"]).flat();
    const result = await applyPatch(patch(...adds), { cwd: root });
    expect(result.failures).toEqual([
      {
        path: "",
        code: "too_many_files",
        message: "The patch touches 11 files; the limit is 10 files per patch.",
        hint: "Split it into smaller patches of at most 10 files each and apply them one after another.",
      },
    ]);
    expect(result.remaining_patch).toBe(patch(...adds));
    expect(await tree(root, true)).toEqual({});
  });

  it("refuses more changed lines than allowed", async () => {
    const root = await workspace({ "f.txt": "a\n" });
    const body = Array.from({ length: 5 }, (_, i) => `+line ${i}`);
    const result = await applyPatch(patch("*** Add File: big.txt", ...body), {
      cwd: root,
      limits: { maxFiles: 10, maxChangedLines: 4 },
    });
    expect(result.failures).toEqual([
      {
        path: "",
        code: "too_many_changes",
        message: "The patch changes 5 lines; the limit is 4 changed lines per patch.",
        hint: "Split it into smaller patches of at most 4 changed lines each and apply them one after another.",
      },
    ]);
    expect(await tree(root, true)).toEqual({ "f.txt": "a\n" });
  });

  it("allows 800 changed lines by default and refuses 801", async () => {
    const root = await workspace();
    const body = (n: number) => Array.from({ length: n }, (_, i) => `+line ${i}`);
    const over = await applyPatch(patch("*** Add File: big.txt", ...body(801)), { cwd: root });
    expect(over.failures.map((f) => [f.code, f.message])).toEqual([
      [
        "too_many_changes",
        "The patch changes 801 lines; the limit is 800 changed lines per patch.",
      ],
    ]);
    expect(await tree(root, true)).toEqual({});
    const atLimit = await applyPatch(patch("*** Add File: big.txt", ...body(800)), { cwd: root });
    expect(atLimit.success).toBe(true);
  });

  it("counts both ends of a move as files", async () => {
    const root = await workspace({ "a.txt": "a\n" });
    const result = await applyPatch(
      patch("*** Update File: a.txt", "*** Move to: b.txt", "@@", "-a", "+b"),
      {
        cwd: root,
        limits: { maxFiles: 1, maxChangedLines: 800 },
      },
    );
    expect(result.failures[0]!.message).toBe(
      "The patch touches 2 files; the limit is 1 files per patch.",
    );
  });
});

describe("io errors", () => {
  it("reports a write that the file system refuses as io_error for that file only", async () => {
    const root = await workspace({ "ok.txt": "a\n", blocker: "i am a file\n" });
    const result = await applyPatch(
      patch("*** Add File: blocker/inside.txt", "+x", "*** Update File: ok.txt", "@@", "-a", "+b"),
      { cwd: root },
    );
    expect(result.changed.map((c) => c.path)).toEqual(["ok.txt"]);
    expect(result.failures).toHaveLength(1);
    expect(result.failures[0]).toMatchObject({ path: "blocker/inside.txt", code: "io_error" });
    expect(result.failures[0]!.message).toMatch(/^Could not write blocker\/inside\.txt: /);
    expect(result.failures[0]!.hint).toBe(
      "Check that the folder exists and is writable, then apply remaining_patch again.",
    );
  });
});
