// Chapter 21 writes a patched file from the bytes it read: the engine leaves the new text as
// stretches of the old one, and each unchanged stretch is written as a view of the disk's bytes.
// These tests pin what that must not change: the bytes written are exactly the new text's UTF-8,
// whatever characters, BOM and line breaks the file has; a file that is not UTF-8 is never written
// back from views; and the second hash check still sees every change, of any size.
import { createHash } from "node:crypto";
import { readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { applyHunksInStretches, splitFileLines } from "../src/patch/apply-hunks.ts";
import { stageWrite } from "../src/fs/atomic-write.ts";
import { applyPatch } from "../src/patch/apply-patch.ts";
import { FileContents } from "../src/patch/file-contents.ts";
import { parsePatch } from "../src/patch/parse-patch.ts";
import { seekLines } from "../src/patch/seek-hunk.ts";
import { patch, sha256, workspace } from "./apply-patch-fixtures.ts";
import { smallDisk } from "./small-disk.ts";

const hex = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

function hunksOf(...lines: string[]) {
  const op = parsePatch(patch("*** Update File: f.txt", ...lines)).operations[0];
  if (op?.kind !== "update") throw new Error("expected an update");
  return op.hunks;
}

describe("file contents as stretches of the bytes read", () => {
  const text = "\uFEFFcafé\r\n日本語\r\nkeep 😀\r\nlast\r\n";
  // Buffer.alloc gives the bytes a memory of their own (small Buffer.from results share a pool).
  const bytes = Buffer.alloc(Buffer.byteLength(text, "utf8"));
  bytes.write(text, "utf8");

  it("writes exactly the new text's UTF-8, with views of the read bytes for what is unchanged", () => {
    const read = FileContents.read(bytes, hex(bytes));
    const { stretches } = applyHunksInStretches(
      read.text,
      hunksOf("@@", "-日本語", "+にほんご"),
      "f.txt",
    );
    const edited = read.edit(stretches);
    const expected = Buffer.from("\uFEFFcafé\r\nにほんご\r\nkeep 😀\r\nlast\r\n", "utf8");
    expect(Buffer.concat(edited.bytes())).toEqual(expected);
    expect(edited.text).toBe(expected.toString("utf8"));
    expect(edited.sha256).toBe(hex(expected));
    const views = edited.bytes().filter((piece) => piece.buffer === bytes.buffer);
    expect(views.map((piece) => Buffer.from(piece).toString("utf8"))).toEqual([
      "café\r\n",
      "keep 😀\r\nlast\r\n",
    ]);
  });

  it("gives the bytes read, and their hash, for contents nobody changed", () => {
    const read = FileContents.read(bytes, "the hash given");
    expect(read.bytes()).toEqual([bytes]);
    expect(read.text).toBe(text);
    expect(read.sha256).toBe("the hash given");
  });

  it("encodes the text of bytes that are not UTF-8 instead of viewing them", () => {
    const binary = Buffer.from([0x61, 0xff, 0x0a]);
    const read = FileContents.read(binary, hex(binary));
    expect(Buffer.concat(read.bytes())).toEqual(Buffer.from("a\uFFFD\n", "utf8"));
    expect(read.sha256).toBe(sha256("a\uFFFD\n"));
  });

  it("patches a file of many characters in several places, byte for byte", async () => {
    const lines = Array.from({ length: 300 }, (_, i) => `ligne ${i} — «${"é".repeat(i % 7)}» 🙂`);
    const root = await workspace({ "f.txt": `\uFEFF${lines.join("\n")}\n` });
    const changed = [...lines];
    const hunks: string[] = [];
    for (const at of [10, 150, 299]) {
      changed[at] = `ligne ${at} changée`;
      hunks.push("@@", ` ${lines[at - 1]}`, `-${lines[at]}`, `+${changed[at]}`);
    }
    const result = await applyPatch(patch("*** Update File: f.txt", ...hunks), { cwd: root });
    expect(result.success).toBe(true);
    const after = await readFile(path.join(root, "f.txt"));
    expect(after).toEqual(Buffer.from(`\uFEFF${changed.join("\n")}\n`, "utf8"));
    expect(result.changed[0]?.sha256).toBe(hex(after));
  });
});

describe("the second check, from the bytes read", () => {
  it("sees a change that keeps the file's size", async () => {
    const root = await workspace({ "f.txt": "a\n" });
    const result = await applyPatch(patch("*** Update File: f.txt", "@@", "-a", "+b"), {
      cwd: root,
      beforeCommit: () => writeFile(path.join(root, "f.txt"), "c\n"),
    });
    expect(result.failures.map((f) => [f.code, f.current_sha256])).toEqual([
      ["file_changed", sha256("c\n")],
    ]);
    expect(await readFile(path.join(root, "f.txt"), "utf8")).toBe("c\n");
  });

  it("sees a file that appeared where an added file goes", async () => {
    const root = await workspace({});
    const result = await applyPatch(patch("*** Add File: new.txt", "+mine"), {
      cwd: root,
      beforeCommit: () => writeFile(path.join(root, "new.txt"), "theirs\n"),
    });
    expect(result.failures.map((f) => [f.code, f.current_sha256])).toEqual([
      ["file_changed", sha256("theirs\n")],
    ]);
    expect(await readFile(path.join(root, "new.txt"), "utf8")).toBe("theirs\n");
  });
});

describe("an index of the lines the hunks look up", () => {
  it("still finds a line nobody said would be looked up, by indexing every line", () => {
    const text = "a\nb\nc\nb\n";
    const { lines } = splitFileLines(text, ["a"]);
    const stats = { comparisons: 0 };
    expect(seekLines(lines, ["a"], { start: 0, end: 4 }, { stats })?.starts).toEqual([0]);
    expect(seekLines(lines, ["b"], { start: 0, end: 4 }, { stats })?.starts).toEqual([1, 3]);
    // The index of "a" alone, then one of every line: each counts a step per line.
    expect(stats.comparisons).toBe(4 + 1 + 1 + 1 + (4 + 1 + 2 + 2));
  });
});

const disk = smallDisk();

describe("a write in pieces on a full disk", () => {
  it.skipIf(disk.skip !== undefined)(
    disk.skip ?? "fails with ENOSPC after the pieces that fitted, and leaves no temp file",
    async () => {
      const pieces = [Buffer.alloc(40_000), Buffer.from("x"), Buffer.alloc(60_000)];
      await expect(stageWrite(path.join(disk.dir, "big.txt"), pieces, undefined)).rejects.toThrow(
        "ENOSPC",
      );
      expect(await readdir(disk.dir)).toEqual([]);
    },
  );
});
