import { describe, expect, it } from "vitest";
import { countChangedLines } from "../src/patch/patch-limits.ts";
import { parsePatch } from "../src/patch/parse-patch.ts";
import { renderRemainingPatch } from "../src/patch/apply-patch.ts";
import { patchOf } from "./patch-engine-helpers.ts";

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
    const counts = parsePatch(PATCH).operations.map(countChangedLines);
    // add: 2 lines; delete: 0 (its size is the file's); update: -old +new +newer -x; whole file: 1.
    expect(counts).toEqual([2, 0, 4, 1]);
  });
});
