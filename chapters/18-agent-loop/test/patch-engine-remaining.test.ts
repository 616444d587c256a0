import { diffArrays } from "diff";
import { describe, expect, it, vi } from "vitest";
import { countChangedLines } from "../src/patch/patch-limits.ts";
import { parsePatch } from "../src/patch/parse-patch.ts";
import { applyPatch, renderRemainingPatch } from "../src/patch/apply-patch.ts";
import { tree, workspace } from "./apply-patch-fixtures.ts";
import { patchOf } from "./patch-engine-helpers.ts";

// The real diffArrays, watched: counting changed lines must not need it (it is quadratic).
vi.mock("diff", async (importOriginal) => {
  const actual = await importOriginal<typeof import("diff")>();
  return { ...actual, diffArrays: vi.fn(actual.diffArrays) };
});

const PATCH = patchOf(
  "*** Begin Patch",
  "*** Add File: new.txt",
  "+one",
  "+two",
  "*** Delete File: old.txt",
  "*** Update File: a.ts",
  "*** Move to: b.ts",
  "@@ class B {",
  "@@   render() {",
  " keep",
  "-old",
  "+new",
  "+newer",
  "@@",
  "-x",
  "*** End of File",
  "*** Update File: whole.txt",
  "replacement",
  "*** End Patch",
);

describe("renderRemainingPatch", () => {
  it("round-trips: parse, render, parse gives the same operations", () => {
    const first = parsePatch(PATCH);
    const rendered = renderRemainingPatch(first.operations);
    expect(rendered).toBe(PATCH);
    expect(parsePatch(rendered).operations).toEqual(first.operations);
  });

  it("holds only the operations it is given, in a valid envelope", () => {
    const [, , update] = parsePatch(PATCH).operations;
    if (!update) throw new Error("expected three operations");
    const rendered = renderRemainingPatch([update]);
    expect(rendered).toBe(
      patchOf(
        "*** Begin Patch",
        "*** Update File: a.ts",
        "*** Move to: b.ts",
        "@@ class B {",
        "@@   render() {",
        " keep",
        "-old",
        "+new",
        "+newer",
        "@@",
        "-x",
        "*** End of File",
        "*** End Patch",
      ),
    );
    expect(parsePatch(rendered).operations).toEqual([update]);
  });

  it("keeps a repaired patch's operations after the envelope is gone", () => {
    const fenced = parsePatch(`\`\`\`patch\r\n${PATCH.replaceAll("\n", "\r\n")}\`\`\`\r\n`);
    expect(parsePatch(renderRemainingPatch(fenced.operations)).operations).toEqual(
      parsePatch(PATCH).operations,
    );
  });
});

describe("countChangedLines", () => {
  it("counts added plus removed lines, not context", () => {
    const counts = parsePatch(PATCH).operations.map((op) => countChangedLines(op));
    // add: 2 lines; delete: 0 (its size is the file's); update: -old +new +newer -x; whole file: 1.
    expect(counts).toEqual([2, 0, 4, 1]);
  });

  it("counts a whole-file replacement as every old line removed and every new line added", () => {
    const whole = parsePatch(PATCH).operations[3]!;
    expect(countChangedLines(whole, () => "a\nb\nc\n")).toBe(4);
  });

  it("counts a 10,000-line rewrite from the patch's markers, without a diff", async () => {
    vi.mocked(diffArrays).mockClear();
    const rewrite = patchOf(
      "*** Begin Patch",
      "*** Update File: big.txt",
      "@@",
      ...Array.from({ length: 10_000 }, (_, i) => `-old ${i}`),
      ...Array.from({ length: 10_000 }, (_, i) => `+new ${i}`),
      "*** End Patch",
    );
    expect(countChangedLines(parsePatch(rewrite).operations[0]!)).toBe(20_000);
    const root = await workspace({ "big.txt": "old 0\n" });
    const result = await applyPatch(rewrite, { cwd: root });
    expect(result.failures.map((f) => f.message)).toEqual([
      "The patch changes 20000 lines; the limit is 800 changed lines per patch.",
    ]);
    expect(diffArrays).not.toHaveBeenCalled();
  });
});

describe("a whole-file replacement and the limits", () => {
  const bigFile = Array.from({ length: 5_000 }, (_, i) => `line ${i}\n`).join("");

  it("refuses replacing a 5,000-line file by one line, as the same change in hunks is", async () => {
    const root = await workspace({ "big.txt": bigFile });
    const whole = patchOf(
      "*** Begin Patch",
      "*** Update File: big.txt",
      "one line",
      "*** End Patch",
    );
    const result = await applyPatch(whole, { cwd: root });
    expect(result.failures).toEqual([
      {
        path: "",
        code: "too_many_changes",
        message: "The patch changes 5001 lines; the limit is 800 changed lines per patch.",
        hint:
          "An Update File section without hunk lines replaces the whole file and counts every old " +
          "and new line: write '@@' hunks of only the lines that change. Split it into smaller " +
          "patches of at most 800 changed lines each and apply them one after another.",
      },
    ]);
    expect(result.remaining_patch).toBe(whole);
    expect(await tree(root, true)).toEqual({ "big.txt": bigFile });
  });

  it("still applies a whole-file replacement within the limit", async () => {
    const root = await workspace({ "small.txt": "a\nb\n" });
    const whole = patchOf("*** Begin Patch", "*** Update File: small.txt", "c", "*** End Patch");
    const limits = { maxFiles: 10, maxChangedLines: 3 };
    expect((await applyPatch(whole, { cwd: root, limits })).success).toBe(true);
    expect(await tree(root)).toEqual({ "small.txt": "c\n" });
    // 3 old lines and 1 new one: over a limit of 3.
    const again = await applyPatch(
      patchOf("*** Begin Patch", "*** Update File: small.txt", "x", "*** End Patch"),
      { cwd: await workspace({ "small.txt": "a\nb\nc\n" }), limits },
    );
    expect(again.failures.map((f) => f.message)).toEqual([
      "The patch changes 4 lines; the limit is 3 changed lines per patch.",
    ]);
  });

  it("names a `cd DIR` patch's paths from the root, so remaining_patch re-applies as sent", async () => {
    const root = await workspace({ "pkg/a.txt": "one\n", "pkg/old.txt": "o\n" });
    const text = patchOf(
      "cd pkg && apply_patch <<'EOF'",
      "*** Begin Patch",
      "*** Add File: new.txt",
      "+n",
      "*** Update File: old.txt",
      "*** Move to: moved/renamed.txt",
      "@@",
      "-o",
      "+r",
      "Update File: a.txt",
      "@@",
      "-not there",
      "+two",
      "*** End Patch",
      "EOF",
    );
    const result = await applyPatch(text, { cwd: root });
    expect(result.changed.map((file) => file.path)).toEqual([
      "pkg/new.txt",
      "pkg/moved/renamed.txt",
    ]);
    expect(result.remaining_patch).toBe(
      patchOf(
        "*** Begin Patch",
        "*** Update File: pkg/a.txt",
        "@@",
        "-not there",
        "+two",
        "*** End Patch",
      ),
    );
    const fixed = result.remaining_patch!.replace("-not there", "-one");
    expect((await applyPatch(fixed, { cwd: root })).success).toBe(true);
    expect(await tree(root)).toEqual({
      "pkg/a.txt": "two\n",
      "pkg/moved/renamed.txt": "r\n",
      "pkg/new.txt": "n\n",
    });
  });
});
