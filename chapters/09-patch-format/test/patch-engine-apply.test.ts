import { describe, expect, it } from "vitest";
import { applyHunks } from "../src/patch/apply-hunks.ts";
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

describe("applyHunks: exact matching", () => {
  it("matches exactly", () => {
    const result = applyHunks("a\nb\nc\n", hunksOf("@@", " a", "-b", "+B"), "f.ts");
    expect(result).toEqual({ text: "a\nB\nc\n" });
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
});

describe("applyHunks: pure additions", () => {
  it("appends a hunk of only added lines to the end of the file (Codex scenario 016)", () => {
    const result = applyHunks("line1\nline2\n", hunksOf("@@", "+added 1", "+added 2"), "f.ts");
    expect(result).toEqual({ text: "line1\nline2\nadded 1\nadded 2\n" });
  });

  it("inserts a hunk of only added lines right after its anchor", () => {
    const result = applyHunks(
      "class A {\n  a() {}\n}\n",
      hunksOf("@@ class A {", "+  b() {}"),
      "f.ts",
    );
    expect(result.text).toBe("class A {\n  b() {}\n  a() {}\n}\n");
  });
});

describe("applyHunks: bytes", () => {
  it("adds a final newline, as Codex does (scenario 014)", () => {
    const result = applyHunks(
      "no newline at end",
      hunksOf("@@", "-no newline at end", "+first", "+second"),
      "f.ts",
    );
    expect(result.text).toBe("first\nsecond\n");
  });
});

describe("applyHunks: linear work", () => {
  const lines = Array.from({ length: 50_000 }, (_, i) => `line ${i}`);
  const file = `${lines.join("\n")}\n`;

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
});
