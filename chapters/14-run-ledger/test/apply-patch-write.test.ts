import { chmod, readdir, readFile, realpath, stat } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { applyPatch } from "../src/patch/apply-patch.ts";
import { discardWrite, stageWrite } from "../src/fs/atomic-write.ts";
import type { BackupManifest } from "../src/patch/backups.ts";
import { patch, sha256, tree, workspace } from "./apply-patch-fixtures.ts";

const BOM = "\uFEFF";

describe("writing files", () => {
  it("keeps CRLF line endings and a BOM end to end", async () => {
    const original = `${BOM}first\r\nsecond\r\nthird\r\n`;
    const root = await workspace({ "win.txt": original });
    const result = await applyPatch(
      patch("*** Update File: win.txt", "@@", " first", "-second", "+SECOND"),
      {
        cwd: root,
      },
    );
    expect(result.success).toBe(true);
    const bytes = await readFile(path.join(root, "win.txt"));
    expect(bytes.toString("utf8")).toBe(`${BOM}first\r\nSECOND\r\nthird\r\n`);
    expect(result.changed[0]!.sha256).toBe(sha256(bytes));
    expect(result.changed[0]!.previous_sha256).toBe(sha256(original));
  });

  it("keeps a file's permission bits", async () => {
    const root = await workspace({ "run.sh": "echo old\n" });
    await chmod(path.join(root, "run.sh"), 0o755);
    await applyPatch(patch("*** Update File: run.sh", "@@", "-echo old", "+echo new"), {
      cwd: root,
    });
    expect((await stat(path.join(root, "run.sh"))).mode & 0o777).toBe(0o755);
  });

  it("refuses to update a file whose bytes are not UTF-8", async () => {
    const root = await workspace({ "data.txt": Buffer.from([0x61, 0xff, 0xfe, 0x0a]) });
    const result = await applyPatch(patch("*** Update File: data.txt", "@@", "-a", "+b"), {
      cwd: root,
    });
    expect(result.failures).toEqual([
      {
        path: "data.txt",
        code: "disallowed_path",
        message: "Cannot update data.txt: its bytes are not valid UTF-8 text.",
        hint: "apply_patch edits text files only; leave this file alone.",
      },
    ]);
  });

  it("backs up old bytes and records a manifest, and nothing else appears besides .agent/", async () => {
    const root = await workspace({ "keep.txt": "k\n", "mod.txt": "old\n", "gone.txt": "bye\n" });
    const result = await applyPatch(
      patch(
        "*** Add File: src/new.txt",
        "+fresh",
        "*** Update File: mod.txt",
        "@@",
        "-old",
        "+new",
        "*** Delete File: gone.txt",
      ),
      { cwd: root, runId: "run-1" },
    );
    expect(result.success).toBe(true);
    expect(await tree(root, true)).toEqual({
      "keep.txt": "k\n",
      "mod.txt": "new\n",
      "src/new.txt": "fresh\n",
      ".agent/backups/run-1/files/mod.txt": "old\n",
      ".agent/backups/run-1/files/gone.txt": "bye\n",
      ".agent/backups/run-1/manifest.json": expect.any(String),
    });
    const manifest = JSON.parse(
      await readFile(path.join(root, ".agent/backups/run-1/manifest.json"), "utf8"),
    ) as BackupManifest;
    expect(manifest.runId).toBe("run-1");
    expect(manifest.patches).toHaveLength(1);
    expect(manifest.patches[0]!.files).toEqual([
      { path: "src/new.txt", previous_sha256: null, backup: null, sha256: sha256("fresh\n") },
      {
        path: "mod.txt",
        previous_sha256: sha256("old\n"),
        backup: "files/mod.txt",
        sha256: sha256("new\n"),
      },
      {
        path: "gone.txt",
        previous_sha256: sha256("bye\n"),
        backup: "files/gone.txt",
        sha256: null,
      },
    ]);
  });

  it("appends later patches of the same run to its manifest and keeps the first backup", async () => {
    const root = await workspace({ "f.txt": "v1\n" });
    const backupDir = path.join(root, ".agent/backups/r");
    await applyPatch(patch("*** Update File: f.txt", "@@", "-v1", "+v2"), {
      cwd: root,
      backupDir,
      runId: "r",
    });
    await applyPatch(patch("*** Update File: f.txt", "@@", "-v2", "+v3"), {
      cwd: root,
      backupDir,
      runId: "r",
    });
    const manifest = JSON.parse(
      await readFile(path.join(backupDir, "manifest.json"), "utf8"),
    ) as BackupManifest;
    expect(manifest.patches.map((p) => p.files[0]!.sha256)).toEqual([
      sha256("v2\n"),
      sha256("v3\n"),
    ]);
    expect(await readFile(path.join(backupDir, "files/f.txt"), "utf8")).toBe("v1\n");
  });

  it("still reports the written files when the manifest cannot be written", async () => {
    // A folder where manifest.json should be: the manifest write fails after the rename.
    const root = await workspace({ "f.txt": "a\n", ".agent/backups/r/manifest.json/x": "" });
    const result = await applyPatch(patch("*** Update File: f.txt", "@@", "-a", "+b"), {
      cwd: root,
      runId: "r",
    });
    expect(result.success).toBe(true);
    expect(result.changed.map((c) => [c.op, c.path])).toEqual([["update", "f.txt"]]);
    expect(result.notes).toEqual([
      expect.stringMatching(
        /^The old bytes were backed up in \.agent\/backups\/r, but its manifest\.json could not be written \(EISDIR: .*\), so undo cannot restore this patch\.$/,
      ),
    ]);
    expect(await readFile(path.join(root, ".agent/backups/r/files/f.txt"), "utf8")).toBe("a\n");
    expect(await readFile(path.join(root, "f.txt"), "utf8")).toBe("b\n");
  });

  it("writes no backup or manifest when nothing was written", async () => {
    const root = await workspace({ "f.txt": "a\n" });
    await applyPatch(patch("*** Update File: f.txt", "@@", "-zzz", "+b"), { cwd: root });
    expect(await readdir(root)).toEqual(["f.txt"]);
  });
});

describe("atomic writes", () => {
  // stageWrite takes real paths, as write-path.ts hands them out (a temp folder may be a link).
  it("stages beside the target and backs out without a trace, new folders included", async () => {
    const root = await realpath(await workspace({ "a.txt": "a\n" }));
    const target = path.join(root, "new/deep/file.txt");
    const staged = await stageWrite(target, Buffer.from("x"), undefined);
    expect(path.dirname(staged.temp)).toBe(path.dirname(target));
    expect(await readFile(staged.temp, "utf8")).toBe("x");
    await discardWrite(staged);
    expect(await readdir(root)).toEqual(["a.txt"]);
  });

  it("applies the mode to the staged file despite the umask", async () => {
    const root = await realpath(await workspace());
    const staged = await stageWrite(path.join(root, "s.sh"), Buffer.from("x"), 0o750);
    expect((await stat(staged.temp)).mode & 0o777).toBe(0o750);
    await discardWrite(staged);
  });
});
