// A chapter page walks the reader through the lines its lesson builds. Every changed src line of
// the chapter is either shown in a placed snippet (::: change) or listed under "not shown" with a
// reason, and at least 85% are shown (docs/.vitepress/placed-snippets.ts).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import {
  changeOfTexts,
  counts,
  notShownItems,
  pageCoverage,
  renderChange,
  select,
} from "../../docs/.vitepress/placed-snippets.ts";
import { DOCS_DIR, markdownSources } from "./site-pages.ts";

const MIN_SHOWN = 0.85;
const pages = markdownSources()
  .filter((source) => source.startsWith("chapters/"))
  .map((source) => [source.slice("chapters/".length, -".md".length), source] as const);

describe("each chapter page shows its chapter's change", () => {
  test.each(pages)("%s: every changed src line is shown or listed as not shown", (slug, source) => {
    const coverage = pageCoverage(slug, readFileSync(join(DOCS_DIR, source), "utf8"));
    expect(
      coverage.missing.slice(0, 12),
      `${coverage.missing.length} changed lines are neither in a "::: change" block nor in "::: not-shown"`,
    ).toEqual([]);
  });

  test.each(pages)(
    `%s: at least ${MIN_SHOWN * 100}% of its changed src lines are shown`,
    (slug, source) => {
      const coverage = pageCoverage(slug, readFileSync(join(DOCS_DIR, source), "utf8"));
      expect(coverage.shown / coverage.total).toBeGreaterThanOrEqual(MIN_SHOWN);
    },
  );
});

const OLD = [
  "import { a } from './a.ts';",
  "",
  "/** Adds one. */",
  "export function one(x: number): number {",
  "  return x + 1;",
  "}",
  "",
  "export function two(x: number): number {",
  "  let r = x;",
  ...Array.from({ length: 14 }, (_, i) => `  r += ${i};`),
  "  return r * 2;",
  "}",
  "",
].join("\n");

describe("selecting and placing part of a file's change", () => {
  const NEW =
    OLD.replace("return x + 1;", "return x + 1; // one more")
      .replace("  return r * 2;", "  return r * 3;")
      .replace(
        "export function two(x: number): number {",
        "export function two(x: number, k = 3): number {",
      ) + "\nexport function three(): number {\n  return 3;\n}\n";
  const change = changeOfTexts("src/n.ts", OLD, NEW);

  test("a declaration that existed is shown with its replaced lines, and placed as a change to it", () => {
    const selection = select(change, ["one"]);
    expect(selection.where).toBe("changes `one`");
    expect(selection.lines.filter(counts).map((l) => `${l.kind}${l.text.trim()}`)).toEqual([
      "-return x + 1;",
      "+return x + 1; // one more",
    ]);
  });

  test("a replaced first line belongs to the declaration, not to the one before", () => {
    const lines = select(change, ["two"])
      .lines.filter(counts)
      .map((l) => `${l.kind}${l.text.trim()}`);
    expect(lines).toContain("-export function two(x: number): number {");
    expect(select(change, ["one"]).lines.map((l) => l.text)).not.toContain(
      "export function two(x: number): number {",
    );
  });

  test("a new declaration is placed after the one before it", () => {
    expect(select(change, ["three"]).where).toBe("new `three`, after `two`");
  });

  test("a selector that names nothing fails the build with the fix", () => {
    expect(() => select(change, ["four"])).toThrow(
      /no declaration, Class-member or line range.*Fix the selector/,
    );
    expect(() => select(change, ["L5-99"])).toThrow(/the file has 29 lines/);
  });

  test("long unchanged runs inside a selection are folded to one counted line", () => {
    const html = renderChange(change, { path: "src/n.ts", selectors: ["two"], why: "Why." });
    expect(html).toContain("// ⋯ 9 unchanged lines");
    expect(html).toContain("return r * 3;");
    expect(html).not.toContain("r += 7;");
  });

  test("a not-shown item without a reason is refused", () => {
    expect(() => notShownItems("::: not-shown\n- `src/a.ts`\n:::\n")).toThrow(
      /why it is not shown/,
    );
    expect(notShownItems("::: not-shown\n- `src/a.ts#L1-4`: imports only\n:::\n")).toEqual([
      { path: "src/a.ts", selectors: ["L1-4"], reason: "imports only" },
    ]);
  });
});
