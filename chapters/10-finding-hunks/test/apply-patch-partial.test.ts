import { describe, expect, it } from "vitest";
import { applyPatch } from "../src/patch/apply-patch.ts";
import { patch, tree, workspace } from "./apply-patch-fixtures.ts";

const AMBIGUOUS = "x = 1\nother\nx = 1\n";

describe("failure", () => {
  it("writes nothing when one file's hunk is ambiguous, and reports that file", async () => {
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
    expect(result.files_changed).toBe(0);
    expect(result.changed).toEqual([]);
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
    expect(await tree(root)).toEqual({ "a.txt": AMBIGUOUS, "b.txt": "old\n" });
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
    expect(ok.changed.map((c) => [c.op, c.path])).toEqual([
      ["update", "f.txt"],
      ["update", "g.txt"],
      ["update", "f.txt"],
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
    await applyPatch(failing, { cwd: root });
    expect(await tree(root)).toEqual({ "f.txt": "1\ntwo\n", "g.txt": "G\n" });
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

  it("reports a malformed patch as one invalid_patch failure", async () => {
    const root = await workspace({ "foo.txt": "x\n" });
    const result = await applyPatch("*** Begin Patch\n*** Frobnicate File: foo\n*** End Patch\n", {
      cwd: root,
    });
    expect(result.success).toBe(false);
    expect(result.failures).toHaveLength(1);
    expect(result.failures[0]).toMatchObject({ path: "", code: "invalid_patch" });
    expect(await tree(root, true)).toEqual({ "foo.txt": "x\n" });
  });

  it("refuses a patch with no operations", async () => {
    const root = await workspace({ "foo.txt": "x\n" });
    const result = await applyPatch("*** Begin Patch\n*** End Patch\n", { cwd: root });
    expect(result.success).toBe(false);
    expect(result.failures[0]!.code).toBe("invalid_patch");
  });
});
