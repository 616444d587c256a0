import { describe, expect, it } from "vitest";
import { applyPatch } from "../src/patch/apply-patch.ts";
import { patch, sha256, tree, workspace } from "./apply-patch-fixtures.ts";

const updateAtoB = patch("*** Update File: f.txt", "@@", "-a", "+b");
const expectFor = (hashes: Record<string, string>) => (rel: string) => hashes[rel];

describe("the hash guard", () => {
  it("applies when the precondition matches and reports both hashes", async () => {
    const root = await workspace({ "f.txt": "a\n" });
    const result = await applyPatch(updateAtoB, {
      cwd: root,
      expect: expectFor({ "f.txt": sha256("a\n") }),
    });
    expect(result).toEqual({
      success: true,
      files_changed: 1,
      changed: [
        {
          op: "update",
          path: "f.txt",
          sha256: sha256("b\n"),
          previous_sha256: sha256("a\n"),
          matched: ["exact"],
        },
      ],
      failures: [],
      repairs: [],
    });
  });

  it("refuses a stale precondition with file_changed and the current hash", async () => {
    const root = await workspace({ "f.txt": "a\n" });
    const stale = sha256("something else\n");
    const result = await applyPatch(updateAtoB, {
      cwd: root,
      expect: expectFor({ "f.txt": stale }),
    });
    expect(result.failures).toEqual([
      {
        path: "f.txt",
        code: "file_changed",
        message: `f.txt has changed since it was last read: expected sha256 ${stale}, found ${sha256("a\n")}.`,
        hint: "Read f.txt again and rebuild the patch against its current contents.",
        current_sha256: sha256("a\n"),
      },
    ]);
    expect(await tree(root)).toEqual({ "f.txt": "a\n" });
  });

  it("in agent mode refuses existing bytes nobody read (not_read), but not new files", async () => {
    const root = await workspace({ "f.txt": "a\n" });
    const refused = await applyPatch(updateAtoB, { cwd: root, requireRead: true });
    expect(refused.failures).toEqual([
      {
        path: "f.txt",
        code: "not_read",
        message:
          "Cannot update f.txt: it has not been read in this run, so the patch may be built on a wrong picture of it.",
        hint: "Read f.txt with read_file first, then send the patch again.",
      },
    ]);
    const deleting = await applyPatch(patch("*** Delete File: f.txt"), {
      cwd: root,
      requireRead: true,
    });
    expect(deleting.failures[0]!.message).toBe(
      "Cannot delete f.txt: it has not been read in this run, so the patch may be built on a wrong picture of it.",
    );
    const adding = await applyPatch(patch("*** Add File: f.txt", "+x"), {
      cwd: root,
      requireRead: true,
    });
    expect(adding.failures[0]!.code).toBe("not_read");
    expect(adding.failures[0]!.message).toMatch(/^Cannot replace f\.txt: /);

    const fresh = await applyPatch(
      patch("*** Add File: g.txt", "+x", "*** Update File: g.txt", "@@", "-x", "+y"),
      {
        cwd: root,
        requireRead: true,
      },
    );
    expect(fresh.success).toBe(true);
    expect(await tree(root)).toEqual({ "f.txt": "a\n", "g.txt": "y\n" });
  });

  it("refuses Add onto an existing file without a precondition (file_exists), allows it with one", async () => {
    const root = await workspace({ "f.txt": "a\n" });
    const addF = patch("*** Add File: f.txt", "+new");
    const refused = await applyPatch(addF, { cwd: root });
    expect(refused.failures).toEqual([
      {
        path: "f.txt",
        code: "file_exists",
        message:
          "Cannot add f.txt: the file already exists, and Add File never overwrites bytes nobody has looked at.",
        hint: 'Change it with "*** Update File: f.txt", or pass --expect f.txt=<sha256 of its current bytes> to replace it on purpose.',
      },
    ]);
    expect(await tree(root)).toEqual({ "f.txt": "a\n" });

    const allowed = await applyPatch(addF, {
      cwd: root,
      expect: expectFor({ "f.txt": sha256("a\n") }),
    });
    expect(allowed.changed).toEqual([
      { op: "add", path: "f.txt", sha256: sha256("new\n"), previous_sha256: sha256("a\n") },
    ]);
    expect(await tree(root)).toEqual({ "f.txt": "new\n" });
  });
});
