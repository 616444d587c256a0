// A disk error in the middle of writing a group of files (a move empties one file and fills
// another; --atomic makes every file one group) must not leave half the group written.
// The failure is injected into the rename step of the atomic writes.
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { applyPatch } from "../src/patch/apply-patch.ts";
import { patch, sha256, tree, workspace } from "./apply-patch-fixtures.ts";

/** File names whose rename over the target fails, as on a full disk. */
const failingRenames = vi.hoisted(() => new Set<string>());
/** Looks at the disk right before each rename, as a crash at that moment would leave it. */
const beforeRename = vi.hoisted(() => ({ look: async (_target: string) => {} }));

vi.mock(import("../src/fs/atomic-write.ts"), async (importOriginal) => {
  const real = await importOriginal();
  return {
    ...real,
    commitWrite: async (staged) => {
      await beforeRename.look(staged.target);
      if (failingRenames.has(path.basename(staged.target))) {
        throw Object.assign(new Error("ENOSPC: no space left on device (injected)"), {
          code: "ENOSPC",
        });
      }
      await real.commitWrite(staged);
    },
  };
});

beforeEach(() => {
  failingRenames.clear();
  beforeRename.look = async () => {};
});

const IO_HINT = "Check that the folder exists and is writable, then apply remaining_patch again.";

describe("a disk error halfway through a group of files", () => {
  const move = patch("*** Update File: a.txt", "*** Move to: b.txt", "@@", "-a", "+moved");
  const other = patch("*** Update File: c.txt", "@@", "-c", "+C");
  const moveAndOther = move.replace("*** End Patch\n", other.replace("*** Begin Patch\n", ""));

  it("puts the moved file back when writing its destination fails, and keeps the other group", async () => {
    const root = await workspace({ "a.txt": "a\n", "c.txt": "c\n" });
    failingRenames.add("b.txt");
    const result = await applyPatch(moveAndOther, { cwd: root, runId: "r" });
    expect(result).toEqual({
      success: false,
      files_changed: 1,
      changed: [
        {
          op: "update",
          path: "c.txt",
          sha256: sha256("C\n"),
          previous_sha256: sha256("c\n"),
          matched: ["exact"],
        },
      ],
      failures: [
        {
          path: "b.txt",
          code: "io_error",
          message: "Could not write b.txt: ENOSPC: no space left on device (injected)",
          hint: IO_HINT,
        },
      ],
      remaining_patch: move,
      repairs: [],
    });
    // a.txt was deleted before b.txt failed: it is back, and no temp file is left.
    expect(await tree(root)).toEqual({ "a.txt": "a\n", "c.txt": "C\n" });
    // The move is in the manifest too, because a group is recorded before its rename; undo finds
    // a.txt and b.txt as they were before the run, and leaves them alone.
    const manifest = JSON.parse(
      await readFile(path.join(root, ".agent/backups/r/manifest.json"), "utf8"),
    ) as { patches: { files: { path: string }[] }[] };
    expect(manifest.patches.map((p) => p.files.map((f) => f.path))).toEqual([
      ["a.txt", "b.txt"],
      ["c.txt"],
    ]);

    // After the cause is fixed, remaining_patch completes the work.
    failingRenames.clear();
    const retry = await applyPatch(result.remaining_patch!, { cwd: root });
    expect(retry.success).toBe(true);
    expect(await tree(root)).toEqual({ "b.txt": "moved\n", "c.txt": "C\n" });
  });

  it("with --atomic undoes every file already written, new folders included", async () => {
    const root = await workspace({ "a.txt": "a\n", "z.txt": "z\n" });
    const text = patch(
      "*** Update File: a.txt",
      "@@",
      "-a",
      "+A",
      "*** Add File: new/dir/n.txt",
      "+n",
      "*** Update File: z.txt",
      "@@",
      "-z",
      "+Z",
    );
    failingRenames.add("z.txt");
    const result = await applyPatch(text, { cwd: root, atomic: true });
    expect(result).toEqual({
      success: false,
      files_changed: 0,
      changed: [],
      failures: [
        {
          path: "z.txt",
          code: "io_error",
          message: "Could not write z.txt: ENOSPC: no space left on device (injected)",
          hint: IO_HINT,
        },
      ],
      remaining_patch: text,
      repairs: [],
      notes: ["--atomic: no file was written because another file in the patch failed."],
    });
    expect(await tree(root)).toEqual({ "a.txt": "a\n", "z.txt": "z\n" });
  });

  it("names the files it could not put back when undoing fails too", async () => {
    const root = await workspace({ "a.txt": "a\n" });
    // b.txt cannot be written, and a.txt (already deleted) cannot be written back.
    failingRenames.add("b.txt").add("a.txt");
    const result = await applyPatch(move, { cwd: root, runId: "r" });
    expect(result.files_changed).toBe(0);
    expect(result.failures).toEqual([
      {
        path: "b.txt",
        code: "io_error",
        message:
          "Could not write b.txt: ENOSPC: no space left on device (injected). Putting back the files " +
          "already written failed too, so these may hold the patch's new bytes or be missing: a.txt.",
        hint:
          "Read a.txt to see what they hold now; their old bytes are in this run's backups " +
          "(.agent/backups/). Restore them, fix the cause, then apply remaining_patch again.",
      },
    ]);
    expect(result.remaining_patch).toBe(move);
    expect(await readFile(path.join(root, ".agent/backups/r/files/a.txt"), "utf8")).toBe("a\n");
    expect(await readdir(root)).toEqual([".agent"]);
  });

  it("records a group in the manifest before its rename, so a crash in between stays undoable", async () => {
    const root = await workspace({ "a.txt": "a\n" });
    const recorded: string[][] = [];
    beforeRename.look = async (target) => {
      if (path.basename(target) !== "a.txt") return;
      const manifest = JSON.parse(
        await readFile(path.join(root, ".agent/backups/r/manifest.json"), "utf8"),
      ) as { patches: { files: { path: string }[] }[] };
      recorded.push(manifest.patches.flatMap((p) => p.files.map((f) => f.path)));
    };
    const result = await applyPatch(patch("*** Update File: a.txt", "@@", "-a", "+b"), {
      cwd: root,
      runId: "r",
    });
    expect(result.success).toBe(true);
    expect(recorded).toEqual([["a.txt"]]);
  });

  it("replaces the manifest with a rename, so a crash never leaves it half-written", async () => {
    const root = await workspace({ "a.txt": "a\n" });
    const renamed: string[] = [];
    beforeRename.look = async (target) => void renamed.push(path.basename(target));
    await applyPatch(patch("*** Update File: a.txt", "@@", "-a", "+b"), { cwd: root, runId: "r" });
    await applyPatch(patch("*** Update File: a.txt", "@@", "-b", "+c"), { cwd: root, runId: "r" });
    expect(renamed).toEqual(["manifest.json", "a.txt", "manifest.json", "a.txt"]);
  });
});
