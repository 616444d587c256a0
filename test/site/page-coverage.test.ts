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
  placeBlocks,
  renderPlaced,
  select,
} from "../../docs/.vitepress/placed-snippets.ts";
import { markLines } from "../../docs/.vitepress/snippets/marked-lines.ts";
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

const block = (selectors: string[]) => ({ path: "src/n.ts", selectors, why: "Why." });

describe("selecting and placing part of a file's change", () => {
  const NEW =
    OLD.replace("return x + 1;", "return x + 1; // one more")
      .replace("  return r * 2;", "  return r * 3;")
      .replace(
        "export function two(x: number): number {",
        "export function two(x: number, k = 3): number {",
      ) + "\nexport function three(): number {\n  return 3;\n}\n";
  const change = changeOfTexts("src/n.ts", OLD, NEW);
  const place = (...selectors: string[][]) =>
    placeBlocks(selectors.map((s) => ({ block: block(s), change })));

  test("a declaration that existed is shown with its replaced lines, and placed in it", () => {
    expect(
      select(change, ["one"])
        .filter(counts)
        .map((l) => `${l.kind}${l.text.trim()}`),
    ).toEqual(["-return x + 1;", "+return x + 1; // one more"]);
    expect(place(["one"])[0]!.caption).toBe("in `one`");
  });

  test("a replaced first line belongs to the declaration, not to the one before", () => {
    const lines = select(change, ["two"])
      .filter(counts)
      .map((l) => `${l.kind}${l.text.trim()}`);
    expect(lines).toContain("-export function two(x: number): number {");
    expect(select(change, ["one"]).map((l) => l.text)).not.toContain(
      "export function two(x: number): number {",
    );
  });

  test("a new declaration is placed after the one before it, with unchanged lines around it", () => {
    const [three] = place(["three"]);
    expect(three!.caption).toBe("new `three`, after `two`");
    expect(three!.hunks[0]!.rows.map((row) => `${row.kind}${row.text}`)).toEqual([
      "   return r * 2;",
      " }",
      "+",
      "+export function three(): number {",
      "+  return 3;",
      "+}",
    ]);
  });

  test("a selector that names nothing fails the build with the fix", () => {
    expect(() => select(change, ["four"])).toThrow(
      /no declaration, Class-member or line range.*Fix the selector/,
    );
    expect(() => select(change, ["L5-99"])).toThrow(/the file has 29 lines/);
  });

  test("long unchanged runs inside a selection are folded to one counted line", () => {
    const html = renderPlaced(place(["two"])[0]!);
    expect(html).toContain("// ⋯ 11 unchanged lines");
    expect(html).toContain("return r * 3;");
    expect(html).not.toContain("r += 7;");
  });

  test("a later block is shown against the code the earlier ones built", () => {
    const [, one] = place(["two"], ["one", "two"]);
    // `two`'s changes are in already: shown again, they are unchanged lines, not new ones.
    expect(one!.hunks.flatMap((hunk) => hunk.rows).filter((row) => row.kind !== " ")).toEqual([
      { kind: "-", text: "  return x + 1;" },
      { kind: "+", text: "  return x + 1; // one more" },
    ]);
  });

  test("a block that repeats an earlier one is flagged; one that shows unchanged code says so", () => {
    const [, again] = place(["one"], ["one"]);
    expect(again!.repeats).toBe(true);
    const ab = changeOfTexts(
      "src/ab.ts",
      "export const a = 1;\n\nexport const b = 2;\n",
      "export const a = 1;\n\nexport const b = 3;\n",
    );
    const [same] = placeBlocks([
      { block: { path: "src/ab.ts", selectors: ["a"], why: "" }, change: ab },
    ]);
    expect([same!.caption, same!.repeats]).toEqual(["unchanged, in `a`", undefined]);
  });

  test("a member is placed inside its class, after the member before it", () => {
    const before = "export class Box {\n  a(): number {\n    return 1;\n  }\n}\n";
    const after = before.replace("  }\n}", "  }\n\n  b(): number {\n    return 2;\n  }\n}");
    const box = changeOfTexts("src/box.ts", before, after);
    const [placed] = placeBlocks([
      { block: { path: "src/box.ts", selectors: ["Box-b"], why: "" }, change: box },
    ]);
    expect(placed!.caption).toBe("new `b`, in `Box`, after `a`");
  });

  test("a block's imports, when it changes more than them, are a compact snippet of their own", () => {
    const before =
      'import { a } from "./a.ts";\n\nexport function f(): number {\n  one();\n  two();\n  three();\n  four();\n  five();\n  six();\n  seven();\n  eight();\n  nine();\n  return a;\n}\n';
    const after = before
      .replace(
        'import { a } from "./a.ts";',
        'import { a } from "./a.ts";\nimport { b } from "./b.ts";',
      )
      .replace("return a;", "return a + b;");
    const f = changeOfTexts("src/f.ts", before, after);
    const placed = placeBlocks([
      { block: { path: "src/f.ts", selectors: [], why: "Why." }, change: f },
    ]);
    expect(placed.map((snippet) => [snippet.caption, snippet.block.why])).toEqual([
      ["imports, at the top of the file", ""],
      ["in `f`", "Why."],
    ]);
  });

  test("a new function gets its own closing brace, not the one of the function before", () => {
    const before = "function a() {\n  x();\n}\n";
    const after = "function a() {\n  x();\n  y();\n}\n\nfunction b() {\n  z();\n}\n";
    const lines = changeOfTexts("src/ab.ts", before, after).lines;
    expect(lines.map((line) => `${line.kind}${line.text}`)).toEqual([
      " function a() {",
      "   x();",
      "+  y();",
      " }",
      "+",
      "+function b() {",
      "+  z();",
      "+}",
    ]);
  });

  test("a declaration that replaces another gets its own closing brace", () => {
    const lines = changeOfTexts(
      "src/ab.ts",
      "function a() {\n  x();\n}\n",
      "function b() {\n  y();\n}\n",
    ).lines;
    expect(lines.map((line) => `${line.kind}${line.text}`)).toEqual([
      "-function a() {",
      "-  x();",
      "+function b() {",
      "+  y();",
      "-}",
      "+}",
    ]);
  });

  test("a blank line to add is shown as an empty line, marked and a line high: copied, it adds no trailing space", () => {
    const before = "function a() {\n  x();\n}\n";
    const after = "function a() {\n  x();\n\n  y();\n}\n";
    const [placed] = placeBlocks([
      { block: block(["a"]), change: changeOfTexts("src/n.ts", before, after) },
    ]);
    const fence = /```ts change-marks=([\d.]*)\|[^\n]*\n([\s\S]*?)\n```/.exec(
      renderPlaced(placed!),
    );
    const lines = fence![2]!.split("\n");
    const added = fence![1]!.split(".").map(Number);
    expect(added.map((n) => lines[n])).toEqual(["", "  y();"]);

    // The highlighter makes each line a span; the blank one stays empty, given a line's height.
    const html = lines.map((line) => `<span class="line">${line}</span>`).join("\n");
    const marked = markLines(html, [[added, "diff add"]]);
    const blank = /<span class="line diff add"( style="[^"]*")?>(.*?)<\/span>/.exec(marked);
    expect(blank?.[2]).toBe("");
    expect(blank?.[1]).toContain("height:1lh");
    expect(marked.replace(/<[^>]+>/g, "")).toBe(lines.join("\n"));
    expect(marked).toContain('<span class="line diff add">  y();</span>');
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
