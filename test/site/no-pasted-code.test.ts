// Project code on the site is imported from the chapters (`<<< @/../chapters/...`), never pasted,
// so it cannot go stale. A ```ts block is allowed only as a marked illustration: code that is not
// in the project (a wrong example, a sketch), with `<!-- illustration -->` on the line before it.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { DOCS_DIR, markdownSources } from "./site-pages.ts";

const MARKER = "<!-- illustration -->";
const TS_FENCE = /^\s*(`{3,}|~{3,})\s*(ts|typescript|tsx|mts|cts)\b/;

/** Line numbers (1-based) of TypeScript fences not preceded by the illustration marker. */
function pastedCodeLines(markdown: string): number[] {
  const lines = markdown.split(/\r?\n/);
  const found: number[] = [];
  let open: string | undefined;
  lines.forEach((line, i) => {
    const fence = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (open !== undefined) {
      if (fence !== undefined && fence.startsWith(open) && line.trim() === fence) open = undefined;
      return;
    }
    if (fence === undefined) return;
    open = fence;
    const previous = lines.slice(0, i).findLast((l) => l.trim() !== "");
    if (TS_FENCE.test(line) && previous?.trim() !== MARKER) found.push(i + 1);
  });
  return found;
}

describe("no pasted project code on the site", () => {
  test("finds an unmarked ts block and accepts a marked one", () => {
    const page = [
      "# Page",
      "",
      "```ts",
      "const x = 1;",
      "```",
      "",
      MARKER,
      "```ts",
      "bad()",
      "```",
      "",
    ];
    expect(pastedCodeLines(page.join("\n"))).toEqual([3]);
  });

  test("does not mistake a ts fence inside another fence for a block", () => {
    const page = ["````md", "```ts", "inner()", "```", "````", "```typescript", "outer()", "```"];
    expect(pastedCodeLines(page.join("\n"))).toEqual([6]);
  });

  test.each(markdownSources())("docs/%s", (source) => {
    const markdown = readFileSync(join(DOCS_DIR, source), "utf8");
    expect(
      pastedCodeLines(markdown),
      `docs/${source}: import the code with <<< @/../chapters/..., or put ${MARKER} right before an illustration`,
    ).toEqual([]);
  });
});
