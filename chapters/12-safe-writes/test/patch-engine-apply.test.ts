import { describe, expect, it } from "vitest";
import { applyHunks, replaceWholeFile } from "../src/patch/apply-hunks.ts";
import { parsePatch } from "../src/patch/parse-patch.ts";
import type { Hunk } from "../src/patch/patch-types.ts";
import { patchOf, refusal } from "./patch-engine-helpers.ts";

/** The hunks of a one-file Update patch built from its hunk lines. */
function hunksOf(...lines: string[]): Hunk[] {
  const op = parsePatch(
    patchOf("*** Begin Patch", "*** Update File: f.ts", ...lines, "*** End Patch"),
  ).operations[0];
  if (op?.kind !== "update") throw new Error("expected an update");
  return op.hunks;
}

const TWO_CLASSES = [
  "class A {",
  "  render() {",
  "    return 1;",
  "  }",
  "}",
  "class B {",
  "  render() {",
  "    return 1;",
  "  }",
  "}",
  "",
].join("\n");

describe("applyHunks: the matching ladder", () => {
  it("matches exactly", () => {
    const result = applyHunks("a\nb\nc\n", hunksOf("@@", " a", "-b", "+B"), "f.ts");
    expect(result).toEqual({ text: "a\nB\nc\n", matched: ["exact"], notes: [] });
  });

  it("ignores trailing whitespace and keeps the file's version of context lines", () => {
    const result = applyHunks("  keep  \nold\n", hunksOf("@@", "   keep", "-old", "+new"), "f.ts");
    expect(result.matched).toEqual(["trailing_whitespace"]);
    expect(result.text).toBe("  keep  \nnew\n");
  });

  it("ignores surrounding whitespace", () => {
    const file = "\tif (x) {\n\t\treturn 1;\n\t}\n";
    const result = applyHunks(
      file,
      hunksOf("@@", " if (x) {", "-  return 1;", "+\t\treturn 2;"),
      "f.ts",
    );
    expect(result.matched).toEqual(["surrounding_whitespace"]);
    expect(result.text).toBe("\tif (x) {\n\t\treturn 2;\n\t}\n");
  });

  it("normalises typographic dashes, quotes and odd spaces", () => {
    const file = "const s = \u201Chello\u201D \u2014 \u2018w\u2019;\nconst\u00A0n = 1;\n";
    const result = applyHunks(
      file,
      hunksOf("@@", " const s = \"hello\" - 'w';", "-const n = 1;", "+const n = 2;"),
      "f.ts",
    );
    expect(result.matched).toEqual(["punctuation"]);
    // The fuzzily matched context line keeps its curly quotes and em dash.
    expect(result.text).toBe("const s = \u201Chello\u201D \u2014 \u2018w\u2019;\nconst n = 2;\n");
  });

  it("prefers a stricter level: an exact match wins over a loose one elsewhere", () => {
    const result = applyHunks("x  \ny\nx\n", hunksOf("@@", "-x", "+z"), "f.ts");
    expect(result).toMatchObject({ text: "x  \ny\nz\n", matched: ["exact"] });
  });

  it("reports one level per hunk", () => {
    const result = applyHunks("a \nb\nc\n", hunksOf("@@", "-a", "+A", "@@", "-c", "+C"), "f.ts");
    expect(result).toMatchObject({ text: "A\nb\nC\n", matched: ["trailing_whitespace", "exact"] });
  });
});

describe("applyHunks: chained hunks and anchors", () => {
  it("searches each hunk after the previous one", () => {
    const result = applyHunks(
      "a\nx\nb\nx\n",
      hunksOf("@@", " a", "-x", "+X", "@@", "-x", "+Z"),
      "f.ts",
    );
    expect(result.text).toBe("a\nX\nb\nZ\n");
  });

  it("narrows the search to after a unique anchor", () => {
    const file = "function f() {\n  return 1;\n}\nfunction g() {\n  return 1;\n}\n";
    const result = applyHunks(
      file,
      hunksOf("@@ function g() {", "-  return 1;", "+  return 2;"),
      "f.ts",
    );
    expect(result).toEqual({
      text: "function f() {\n  return 1;\n}\nfunction g() {\n  return 2;\n}\n",
      matched: ["exact"],
      notes: [],
    });
  });

  it("narrows to the anchor's block, so an outer anchor can pick the first of two classes", () => {
    const onlyClass = applyHunks(
      TWO_CLASSES,
      hunksOf("@@ class A {", "-    return 1;", "+    return 2;"),
      "v.ts",
    );
    expect(onlyClass.text.split("\n")[2]).toBe("    return 2;");
    expect(onlyClass.text.split("\n")[7]).toBe("    return 1;");
    const stepByStep = applyHunks(
      TWO_CLASSES,
      hunksOf("@@ class B {", "@@   render() {", "-    return 1;", "+    return 2;"),
      "v.ts",
    );
    expect(stepByStep.text.split("\n")[2]).toBe("    return 1;");
    expect(stepByStep.text.split("\n")[7]).toBe("    return 2;");
    expect(stepByStep.notes).toEqual([]);
  });

  it("looks past the anchor's block when the lines are not inside it", () => {
    const file = "function f() {\n  a();\n}\nafter();\n";
    const result = applyHunks(file, hunksOf("@@ function f() {", "-after();", "+later();"), "f.ts");
    expect(result.text).toBe("function f() {\n  a();\n}\nlater();\n");
  });

  it("accepts a hunk that repeats its anchor line as its first context line", () => {
    const file = "def f():\n    return 1\n\ndef g():\n    return 1\n";
    const result = applyHunks(
      file,
      hunksOf("@@ def g():", " def g():", "-    return 1", "+    return 2"),
      "f.py",
    );
    expect(result.text).toBe("def f():\n    return 1\n\ndef g():\n    return 2\n");
  });

  it("ignores a missing anchor, with a note, when the lines are unique anyway", () => {
    const result = applyHunks("a\nb\n", hunksOf("@@ function gone() {", "-b", "+c"), "f.ts");
    expect(result).toEqual({
      text: "a\nc\n",
      matched: ["exact"],
      notes: ["anchor '@@ function gone() {' was not found and was ignored"],
    });
  });
});

describe("applyHunks: ambiguity", () => {
  it("refuses a hunk that matches several places and lists their lines", () => {
    const file = "function f() {\n  return 1;\n}\nfunction g() {\n  return 1;\n}\n";
    const error = refusal(() =>
      applyHunks(file, hunksOf("@@", "-  return 1;", "+  return 2;"), "f.ts"),
    );
    expect(error.code).toBe("ambiguous_context");
    expect(error.message).toBe(
      "Hunk 1 of f.ts matches 2 places (lines 2 and 5); it was not applied, to avoid changing the wrong one.",
    );
    expect(error.hint).toBe(
      "Add unchanged lines above or below the change that occur only at the intended place, or an '@@' " +
        "anchor line that is unique in the file: use '@@ function f() {' (line 1) or " +
        "'@@ function g() {' (line 4) as the anchor.",
    );
  });

  it("two classes with identical render() bodies: the shared anchor is ignored and cannot separate them", () => {
    const error = refusal(() =>
      applyHunks(
        TWO_CLASSES,
        hunksOf("@@ render() {", "-    return 1;", "+    return 2;"),
        "view.ts",
      ),
    );
    expect(error.code).toBe("ambiguous_context");
    expect(error.message).toBe(
      "Hunk 1 of view.ts matches 2 places (lines 3 and 8); it was not applied, to avoid changing the " +
        "wrong one. Note: anchor '@@ render() {' matched 2 lines (2 and 7) and was ignored.",
    );
    expect(error.hint).toBe(
      "Add unchanged lines above or below the change that occur only at the intended place, or an '@@' " +
        "anchor line that is unique in the file. The anchor '@@ render() {' cannot separate them: every " +
        "place is inside such a line. Instead use '@@ class A {' (line 1) or '@@ class B {' (line 6) as " +
        "the anchor (you may keep '@@ render() {' as a second anchor after it).",
    );
  });

  it("says when identical enclosing lines go all the way up", () => {
    const file = "  x {\n    y\n  }\n  x {\n    y\n  }\n";
    const error = refusal(() => applyHunks(file, hunksOf("@@", "-    y", "+    z"), "f.ts"));
    expect(error.hint).toBe(
      "Add unchanged lines above or below the change that occur only at the intended place, or an '@@' " +
        "anchor line that is unique in the file. The anchor '@@ x {' cannot separate them: every place " +
        "is inside such a line, so add context lines that differ between the places.",
    );
  });

  it("lists at most ten candidates", () => {
    const error = refusal(() => applyHunks("}\n".repeat(12), hunksOf("@@", "-}", "+};"), "f.ts"));
    expect(error.message).toBe(
      "Hunk 1 of f.ts matches 12 places (lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 and 2 more); it was not " +
        "applied, to avoid changing the wrong one.",
    );
    expect(error.hint).toBe(
      "Add unchanged lines above or below the change that occur only at the intended place, or an '@@' " +
        "anchor line that is unique in the file.",
    );
  });

  it("refuses a hunk of blank lines that matches up to the end of the file", () => {
    // Issue 12: the ambiguity hint read past the last line and failed with a TypeError.
    const error = refusal(() =>
      applyHunks("a\n\n\nb\n\n\n", hunksOf("@@", " ", "+x", " "), "f.ts"),
    );
    expect(error.code).toBe("ambiguous_context");
    expect(error.message).toBe(
      "Hunk 1 of f.ts matches 2 places (lines 2 and 5); it was not applied, to avoid changing the wrong one.",
    );
    expect(error.hint).toBe(
      "Add unchanged lines above or below the change that occur only at the intended place, or an '@@' " +
        "anchor line that is unique in the file.",
    );
  });

  it("judges ambiguity at the first level that matches: an exact match elsewhere decides", () => {
    expect(applyHunks("a\na \n", hunksOf("@@", "-a", "+b"), "f.ts").text).toBe("b\na \n");
  });
});

describe("applyHunks: failures", () => {
  it("reports lines that are not in the file, with Codex's listing of them", () => {
    const error = refusal(() =>
      applyHunks("line1\nline2\n", hunksOf("@@", "-missing", "+changed"), "modify.txt"),
    );
    expect(error.code).toBe("context_not_found");
    expect(error.message).toBe(
      "Hunk 1 of modify.txt does not match the file: its context and removed lines were not found.\nmissing",
    );
    expect(error.hint).toBe(
      "Read the file again and copy the unchanged (' ') and removed ('-') lines exactly as they are " +
        "now; hunks for one file must appear in file order.",
    );
  });

  it("says where the search started for a later hunk", () => {
    const error = refusal(() =>
      applyHunks("a\nb\nc\n", hunksOf("@@", "-b", "+B", "@@", "-a", "+A"), "f.ts"),
    );
    expect(error.message).toBe(
      "Hunk 2 of f.ts does not match the file: its context and removed lines were not found after line 2.\na",
    );
  });

  it("refuses a pure addition whose anchor matches several lines", () => {
    const error = refusal(() =>
      applyHunks(TWO_CLASSES, hunksOf("@@ render() {", "+    // hi"), "v.ts"),
    );
    expect(error.code).toBe("ambiguous_context");
    expect(error.message).toBe(
      "Hunk 1 of v.ts only adds lines, and its anchor does not say where. Note: anchor '@@ render() {' " +
        "matched 2 lines (2 and 7) and was ignored.",
    );
    expect(error.hint).toBe(
      "Use an '@@' anchor line that occurs once in the file, or add unchanged context lines (' ') " +
        "around the added lines.",
    );
  });

  it("refuses a pure addition whose anchor is missing", () => {
    const error = refusal(() => applyHunks("a\n", hunksOf("@@ nowhere", "+b"), "f.ts"));
    expect(error.code).toBe("context_not_found");
    expect(error.message).toBe(
      "Hunk 1 of f.ts only adds lines, and its anchor does not say where. Note: anchor '@@ nowhere' " +
        "was not found and was ignored.",
    );
    expect(error.hint).toBe(
      "Read the file again and copy the anchor line exactly, or add unchanged context lines (' ') " +
        "around the added lines.",
    );
  });
});

describe("applyHunks: End of File and pure additions", () => {
  it("matches an End of File hunk only at the end", () => {
    const result = applyHunks(
      "a\nb\na\nb\n",
      hunksOf("@@", " a", "-b", "+B", "*** End of File"),
      "f.ts",
    );
    expect(result.text).toBe("a\nb\na\nB\n");
  });

  it("refuses an End of File hunk that is not at the end", () => {
    const error = refusal(() =>
      applyHunks("a\nb\nc\n", hunksOf("@@", "-a", "+A", "*** End of File"), "f.ts"),
    );
    expect(error.message).toBe(
      "Hunk 1 of f.ts does not match the file: its context and removed lines were not found at the end of the file.\na",
    );
    expect(error.hint).toBe(
      "Read the file again and copy its last lines exactly, or remove '*** End of File' if the hunk " +
        "is not at the end of the file.",
    );
  });

  it("appends a hunk of only added lines to the end of the file (Codex scenario 016)", () => {
    const result = applyHunks("line1\nline2\n", hunksOf("@@", "+added 1", "+added 2"), "f.ts");
    expect(result).toEqual({
      text: "line1\nline2\nadded 1\nadded 2\n",
      matched: ["exact"],
      notes: [],
    });
  });

  it("inserts a hunk of only added lines right after its anchor", () => {
    const result = applyHunks(
      "class A {\n  a() {}\n}\n",
      hunksOf("@@ class A {", "+  b() {}"),
      "f.ts",
    );
    expect(result.text).toBe("class A {\n  b() {}\n  a() {}\n}\n");
  });

  it("retries without a trailing empty context line, as Codex does", () => {
    // The empty line before "@@" is an empty context line that the file does not have.
    const result = applyHunks("a\nb\nc\n", hunksOf("@@", "-a", "+A", "", "@@", "-c", "+C"), "f.ts");
    expect(result.text).toBe("A\nb\nC\n");
  });
});

describe("applyHunks: bytes", () => {
  it("keeps CRLF line endings and writes new lines with CRLF", () => {
    const result = applyHunks("a\r\nb\r\nc\r\n", hunksOf("@@", " a", "-b", "+B", "+B2"), "f.ts");
    expect(result.text).toBe("a\r\nB\r\nB2\r\nc\r\n");
  });

  it("keeps a BOM and matches the first line without it", () => {
    const result = applyHunks("\uFEFFfirst\nsecond\n", hunksOf("@@", "-first", "+1st"), "f.ts");
    expect(result.text).toBe("\uFEFF1st\nsecond\n");
  });

  it("keeps the bytes of lines the patch did not change, mixed endings included", () => {
    const file = "keep\t \r\nmid\nold\r\nend";
    const result = applyHunks(file, hunksOf("@@", "-old", "+new"), "f.ts");
    expect(result.text).toBe("keep\t \r\nmid\nnew\r\nend\r\n");
  });

  it("adds a final newline, as Codex does (scenario 014)", () => {
    const result = applyHunks(
      "no newline at end",
      hunksOf("@@", "-no newline at end", "+first", "+second"),
      "f.ts",
    );
    expect(result.text).toBe("first\nsecond\n");
  });

  it("replaces a whole file keeping its BOM and line endings", () => {
    expect(replaceWholeFile("\uFEFFold\r\nfile\r\n", "new\nfile\n")).toEqual({
      text: "\uFEFFnew\r\nfile\r\n",
      matched: [],
      notes: ["the update had no hunk lines, so its body replaced the whole file"],
    });
  });
});

describe("applyHunks: linear work", () => {
  const lines = Array.from({ length: 50_000 }, (_, i) => `line ${i}`);
  const file = `${lines.join("\n")}\n`;

  it("indexes each line once, then compares only where the hunk's rarest line is", () => {
    const stats = { comparisons: 0 };
    const hunks = hunksOf(
      "@@",
      " line 40000",
      " line 40001",
      "-line 40002",
      "+changed",
      " line 40003",
    );
    const result = applyHunks(file, hunks, "big.txt", stats);
    expect(result.text.split("\n")[40002]).toBe("changed");
    // One step per line to index the file, one look-up per hunk line, one step along the
    // rarest line's chain (a single line), and the 4 comparisons of the match.
    expect(stats.comparisons).toBe(50_000 + 4 + 1 + 4);
  });

  it("stays within file × hunk × levels comparisons in the worst case", () => {
    const same = `${"a\n".repeat(20_000)}`;
    const stats = { comparisons: 0 };
    const error = refusal(() =>
      applyHunks(same, hunksOf("@@", " a", " a", " a", "-b", "+c"), "f.ts", stats),
    );
    expect(error.code).toBe("context_not_found");
    expect(stats.comparisons).toBeLessThanOrEqual(20_000 * 4 * 4);
    // Each level indexes the file and looks up the 4 lines: "b" is nowhere, so nothing is compared.
    expect(stats.comparisons).toBe(4 * (20_000 + 4));
  });

  /** A file of `size` lines, line i being `line(i)`. */
  const fileOf = (size: number, line: (i: number) => string) =>
    `${Array.from({ length: size }, (_, i) => line(i)).join("\n")}\n`;

  /** Comparisons to apply `hunk` to `fileOf(size, line)`. */
  function comparisons(size: number, line: (i: number) => string, ...hunk: string[]): number {
    const stats = { comparisons: 0 };
    applyHunks(fileOf(size, line), hunksOf(...hunk), "f.ts", stats);
    return stats.comparisons;
  }

  it("doubles, no more, when the file doubles, at every level of the ladder", () => {
    // The file has "item - target"; the hunk has an en dash: only the last level matches, after
    // three levels whose index had no such line. Each level indexes the file once (size steps)
    // and looks the line up (1); the last one also steps to the line and compares it (1 + 1).
    const line = (i: number) => (i === 5_000 ? "item - target" : `item - ${i}`);
    const hunk = ["@@", "-item \u2013 target", "+item - found"];
    expect(comparisons(10_000, line, ...hunk)).toBe(4 * (10_000 + 1) + 2);
    expect(comparisons(20_000, line, ...hunk)).toBe(4 * (20_000 + 1) + 2);
  });

  it("finds every candidate of an ambiguous hunk in the same pass, without a rescan", () => {
    const places: Record<number, string> = {
      100: "dup",
      101: "after",
      7_000: "dup",
      7_001: "after",
    };
    const line = (i: number) => places[i] ?? `line ${i}`;
    const stats = { comparisons: 0 };
    const error = refusal(() =>
      applyHunks(fileOf(10_000, line), hunksOf("@@", "-dup", "+DUP", " after"), "f.ts", stats),
    );
    expect(error.message).toMatch(/^Hunk 1 of f\.ts matches 2 places \(lines 101 and 7001\)/);
    // The index, one look-up per hunk line, and at each of the two places one step along the
    // chain and 2 comparisons; the ambiguity hint compares nothing.
    expect(stats.comparisons).toBe(10_000 + 2 + 2 * (1 + 2));
  });

  it("applies many hunks to a big file", () => {
    const hunkLines = Array.from({ length: 500 }, (_, i) => [
      "@@",
      `-line ${i * 100}`,
      `+LINE ${i * 100}`,
    ]).flat();
    const result = applyHunks(file, hunksOf(...hunkLines), "big.txt");
    const out = result.text.split("\n");
    expect(out).toHaveLength(50_001);
    expect(out[49_900]).toBe("LINE 49900");
    expect(out[49_901]).toBe("line 49901");
  });

  it("patches a file of 200,000 lines", () => {
    // Issue 12: from about 125,000 lines on, `push(...lines)` overflowed the call stack.
    const big = Array.from({ length: 200_000 }, (_, i) => `line ${i}\n`).join("");
    const result = applyHunks(big, hunksOf("@@", "-line 199999", "+LINE 199999"), "big.txt");
    expect(result.text).toBe(big.replace("line 199999\n", "LINE 199999\n"));
  });

  /** Comparisons to apply `count` two-line hunks, spread over `file`. */
  function manyHunks(count: number): number {
    const hunkLines = Array.from({ length: count }, (_, i) => [
      "@@",
      ` line ${i * 200}`,
      `-line ${i * 200 + 1}`,
      `+LINE ${i * 200 + 1}`,
    ]).flat();
    const stats = { comparisons: 0 };
    applyHunks(file, hunksOf(...hunkLines), "big.txt", stats);
    return stats.comparisons;
  }

  it("does not rescan the file for each hunk: twice the hunks add only their own work", () => {
    // The file is indexed once. Each hunk then costs 2 look-ups, 1 step along the chain of its
    // rarest line and 2 comparisons: nothing in proportion to the file. Scanning the rest of
    // the file for each hunk, to prove it matches once, cost 25,000 comparisons per hunk.
    const once = manyHunks(100);
    expect(once).toBe(50_000 + 100 * 5);
    expect(manyHunks(200) - once).toBe(100 * 5);
  });
});
