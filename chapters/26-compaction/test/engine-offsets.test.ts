// Chapter 21's engine keeps lines as offsets into the file's text and finds them through hashes.
// These tests pin what that must not change: every line comes back exactly, and a hash is only a
// candidate, so two different lines with the same hash never match each other.
import { describe, expect, it } from "vitest";
import { applyHunks, splitFileLines } from "../src/patch/apply-hunks.ts";
import { hashText } from "../src/patch/seek-hunk.ts";
import { parsePatch } from "../src/patch/parse-patch.ts";
import type { Hunk } from "../src/patch/patch-types.ts";
import { patchOf } from "./patch-engine-helpers.ts";

function hunksOf(...lines: string[]): Hunk[] {
  const op = parsePatch(
    patchOf("*** Begin Patch", "*** Update File: f.ts", ...lines, "*** End Patch"),
  ).operations[0];
  if (op?.kind !== "update") throw new Error("expected an update");
  return op.hunks;
}

/** Two different lines with the same 32-bit hash, found by trying numbered lines. */
function collidingLines(): [string, string] {
  const seen = new Map<number, string>();
  for (let i = 0; ; i++) {
    const line = `  total += item${i};`;
    const hash = hashText(line);
    const earlier = seen.get(hash);
    if (earlier !== undefined) return [earlier, line];
    seen.set(hash, line);
  }
}

describe("lines as offsets", () => {
  it("gives back every line exactly, without its line break, whatever the breaks are", () => {
    const text = "\uFEFFfirst\r\nsecond\n\nlast without break";
    const { bom, lines } = splitFileLines(text);
    expect(bom).toBe("\uFEFF");
    expect(lines.starts).toBeInstanceOf(Int32Array);
    expect(Array.from({ length: lines.length }, (_, i) => lines.line(i))).toEqual([
      "first",
      "second",
      "",
      "last without break",
    ]);
  });

  it("has no lines for an empty file, and one for a file of one line break", () => {
    expect(splitFileLines("").lines.length).toBe(0);
    expect(splitFileLines("\n").lines.length).toBe(1);
  });

  it("copies the unchanged stretches byte for byte, CRLF and all", () => {
    const text = "a\r\nb\r\nc\r\nd\r\n";
    const { text: patched } = applyHunks(text, hunksOf("@@", " b", "-c", "+C"), "f.ts");
    expect(patched).toBe("a\r\nb\r\nC\r\nd\r\n");
  });
});

describe("lines found by their hash", () => {
  it("finds lines of any characters, and a line longer than the hashing's chunk", () => {
    const long = "x".repeat(70_000) + "y";
    const text = ["a ✓ 😀 ünï", long, "日本語のコード", "end", ""].join("\n");
    const result = applyHunks(
      text,
      hunksOf("@@", " a ✓ 😀 ünï", `-${long}`, "+short", " 日本語のコード"),
      "f.ts",
    );
    expect(result.text).toBe(["a ✓ 😀 ünï", "short", "日本語のコード", "end", ""].join("\n"));
    expect(result.matched).toEqual(["exact"]);
  });
});

describe("a hash is only a candidate", () => {
  const [first, second] = collidingLines();

  it("finds two different lines with the same hash (the test's own premise)", () => {
    expect(first).not.toBe(second);
    expect(hashText(first)).toBe(hashText(second));
  });

  it("compares a candidate in full: a line with the same hash is not a match", () => {
    const text = [first, "  return total;", second, "  return total;", ""].join("\n");
    const stats = { comparisons: 0 };
    const result = applyHunks(
      text,
      hunksOf("@@", ` ${second}`, "-  return total;", "+  return total * 2;"),
      "f.ts",
      stats,
    );
    // Without the full comparison, `first` would be a second match: ambiguous, or applied there.
    expect(result.text).toBe(
      [first, "  return total;", second, "  return total * 2;", ""].join("\n"),
    );
    expect(result.matched).toEqual(["exact"]);
  });
});
