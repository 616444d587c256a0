// The times under a chapter's title are computed from its page (docs/.vitepress/page-facts.ts):
// the formula the home page states, applied to what a reader actually reads.
import { describe, expect, test } from "vitest";
import { countPage, pageTimes } from "../../docs/.vitepress/page-facts.ts";
import { formatMinutes } from "../../docs/.vitepress/minutes.ts";

describe("a page's reading and build times", () => {
  test("count prose words and shown code lines, not folded blocks or front matter", () => {
    const page = [
      "---",
      "title: not counted",
      "---",
      "# A title",
      "",
      "Four words of prose.",
      "",
      "```ts",
      "const a = 1;",
      "const b = 2;",
      "```",
      "",
      "```sh",
      "pnpm exec vitest run chapters/11-hash-guard",
      "```",
      "",
      "<details><summary>The full diff</summary>",
      "",
      "```diff",
      "+folded",
      "```",
      "",
      "</details>",
      "",
      "::: details Solution",
      "folded words here",
      "```ts",
      "folded();",
      "```",
      ":::",
    ].join("\n");
    // "A title" (2) + "Four words of prose." (4); 3 code lines, 1 of them a pnpm command.
    expect(countPage(page)).toEqual({ proseWords: 6, codeLines: 3, runLines: 0, checkpoints: 1 });
  });

  test("follow the formula on the home page", () => {
    const times = pageTimes({ proseWords: 4000, codeLines: 900, runLines: 300, checkpoints: 2 });
    // 4000 / 200 + (900 + 300) / 30 = 20 + 40 = 60
    expect(times.readMinutes).toBe(60);
    // 60 + 900 / 8 + 15 + 2 * 5 = 60 + 112.5 + 15 + 10 = 197.5
    expect(times.buildMinutes).toBe(198);
    expect(formatMinutes(times.readMinutes)).toBe("60 min");
    expect(formatMinutes(times.buildMinutes)).toBe("3 h 20 min");
  });
});
