// Every chapter page has the same shape, so a reader always knows where to look: why the increment
// exists, how the code does it, a real run, the diff, and exercises that each come with a hint.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { DOCS_DIR, markdownSources } from "./site-pages.ts";

const SECTIONS = [
  "## Why this chapter exists",
  "## How it works",
  "## Run it",
  "## What this chapter adds",
  "## Exercises",
];

const chapterSources = markdownSources().filter((source) => source.startsWith("chapters/"));

/** The level-2 headings of a page, in order. */
function sections(markdown: string): string[] {
  return markdown.split("\n").filter((line) => /^## /.test(line));
}

/** For each numbered exercise ("1. **Title.**"), whether a hint block follows before the next one. */
function exercisesWithHints(markdown: string): Array<{ exercise: string; hint: boolean }> {
  const exercises = markdown.slice(markdown.indexOf("## Exercises")).split(/^(?=\d+\. \*\*)/m);
  return exercises.slice(1).map((text) => ({
    exercise: text.split("\n")[0]!,
    hint: text.includes("::: details Hint"),
  }));
}

describe("chapter pages", () => {
  test("there is a page for every chapter of the first", () => {
    expect(chapterSources).toContain("chapters/01-model-client.md");
  });

  test.each(chapterSources)("docs/%s has the sections of a chapter, in order", (source) => {
    const markdown = readFileSync(join(DOCS_DIR, source), "utf8");
    expect(sections(markdown)).toEqual(SECTIONS);
  });

  test.each(chapterSources)("docs/%s imports its captured run, its diff and its code", (source) => {
    const markdown = readFileSync(join(DOCS_DIR, source), "utf8");
    const nn = source.slice("chapters/".length, "chapters/".length + 2);
    expect(markdown).toMatch(
      new RegExp(`<div class="transcript">\\s*<<< @/outputs/${nn}\\.txt\\{text\\}\\s*</div>`),
    );
    expect(markdown).toContain(`<<< @/generated/${nn}.stat{text}`);
    expect(markdown).toContain(`<<< @/generated/${nn}.diff`);
    expect(markdown).toMatch(/^<<< @\/\.\.\/chapters\/.+\{ts\}$/m);
  });

  test.each(chapterSources)("docs/%s has exercises, each with a hint", (source) => {
    const exercises = exercisesWithHints(readFileSync(join(DOCS_DIR, source), "utf8"));
    expect(exercises.length).toBeGreaterThanOrEqual(2);
    expect(exercises.filter((e) => !e.hint).map((e) => e.exercise)).toEqual([]);
  });

  test("an exercise without a hint is noticed", () => {
    const page = [
      "## Exercises",
      "",
      "1. **With.** Do it.",
      "",
      "   ::: details Hint",
      "   Like this.",
      "   :::",
      "",
      "2. **Without.** Do that.",
      "",
    ].join("\n");
    expect(exercisesWithHints(page)).toEqual([
      { exercise: "1. **With.** Do it.", hint: true },
      { exercise: "2. **Without.** Do that.", hint: false },
    ]);
  });
});
