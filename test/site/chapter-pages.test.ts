// Every chapter page has the same shape, so a reader always knows where to look: why the increment
// exists, how the code does it (placed snippets, each step with the test that proves it), a real
// run, the failure the lesson prevents and the fix, the diff, a recap, and exercises that each come
// with a hint and a solution.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { solutionIds } from "../../docs/.vitepress/exercise-solutions.ts";
import { listExercises } from "../../scripts/lib/exercises.ts";
import { DOCS_DIR, markdownSources, ROOT } from "./site-pages.ts";

const SECTIONS = [
  "## Why this chapter exists",
  "## How it works",
  "## Run it",
  "## Break it",
  "## What this chapter adds",
  "## What you built",
  "## Exercises",
];

const chapterSources = markdownSources().filter((source) => source.startsWith("chapters/"));

/** The level-2 headings of a page, in order. */
function sections(markdown: string): string[] {
  return markdown.split("\n").filter((line) => /^## /.test(line));
}

/** The text of a level-2 section, up to the next one. */
function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n${heading}\n`);
  if (start === -1) return "";
  const next = markdown.indexOf("\n## ", start + heading.length + 1);
  return markdown.slice(start, next === -1 ? undefined : next);
}

/** For each numbered exercise ("1. **Title.**"), whether a hint and a solution follow before the next one. */
function exercisesWithHints(
  markdown: string,
): Array<{ exercise: string; hint: boolean; solution: boolean }> {
  const exercises = markdown.slice(markdown.indexOf("## Exercises")).split(/^(?=\d+\. \*\*)/m);
  return exercises.slice(1).map((text) => ({
    exercise: text.split("\n")[0]!,
    hint: text.includes("::: details Hint"),
    solution: /^\s*::: solution \S+/m.test(text),
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

  test.each(chapterSources)("docs/%s imports its captured run and its diff", (source) => {
    const markdown = readFileSync(join(DOCS_DIR, source), "utf8");
    const nn = source.slice("chapters/".length, "chapters/".length + 2);
    expect(markdown).toContain(`<<< @/outputs/${nn}.txt{transcript}`);
    expect(markdown).toContain(`<<< @/generated/${nn}.stat{text}`);
    expect(markdown).toContain(`<<< @/generated/${nn}.diff`);
  });

  test.each(chapterSources)(
    "docs/%s breaks it: the run on the chapter before, then on this one",
    (source) => {
      const markdown = section(readFileSync(join(DOCS_DIR, source), "utf8"), "## Break it");
      const slug = source.slice("chapters/".length, -".md".length);
      const previous = `<<< @/outputs/break-it/${slug}.previous.txt{transcript}`;
      const own = `<<< @/outputs/break-it/${slug}.this.txt{transcript}`;
      expect(markdown).toContain(own);
      // Chapter 1 has no chapter before it: its page shows the failure in another way (see its text).
      if (slug !== "01-model-client") {
        expect(markdown.indexOf(previous)).toBeGreaterThan(-1);
        expect(markdown.indexOf(previous)).toBeLessThan(markdown.indexOf(own));
      }
    },
  );

  test.each(chapterSources)(
    "docs/%s names the test that proves each step of How it works",
    (source) => {
      const steps = section(readFileSync(join(DOCS_DIR, source), "utf8"), "## How it works")
        .split(/^(?=### )/m)
        .filter((step) => step.startsWith("### "));
      expect(steps.length).toBeGreaterThanOrEqual(2);
      const problems = steps.flatMap((step) => {
        const title = step.split("\n")[0]!;
        const checkpoint =
          /\*\*Checkpoint\.\*\*[^\n]*`pnpm exec vitest run ((?:chapters|test)\/[^`\s]+)[^`]*`/.exec(
            step,
          );
        if (!checkpoint) return [`${title}: no "**Checkpoint.** \`pnpm exec vitest run …\`" line`];
        const missing = checkpoint[1]!.split(" ").filter((file) => !existsSync(join(ROOT, file)));
        return missing.map((file) => `${title}: ${file} does not exist`);
      });
      expect(problems).toEqual([]);
    },
  );

  test.each(chapterSources)("docs/%s ends with a recap of what the reader built", (source) => {
    const recap = section(readFileSync(join(DOCS_DIR, source), "utf8"), "## What you built");
    expect(recap.trim().length).toBeGreaterThan(200);
  });

  test.each(chapterSources)("docs/%s has exercises, each with a hint and a solution", (source) => {
    const exercises = exercisesWithHints(readFileSync(join(DOCS_DIR, source), "utf8"));
    expect(exercises.length).toBeGreaterThanOrEqual(2);
    expect(exercises.filter((e) => !e.hint).map((e) => e.exercise)).toEqual([]);
    expect(exercises.filter((e) => !e.solution).map((e) => e.exercise)).toEqual([]);
  });

  test.each(chapterSources)(
    "docs/%s shows the solution of every exercise of its chapter, and no other",
    (source) => {
      const slug = source.slice("chapters/".length, -".md".length);
      const onPage = solutionIds(readFileSync(join(DOCS_DIR, source), "utf8")).sort();
      const inRepo = listExercises()
        .filter((exercise) => exercise.chapter.slug === slug)
        .map((exercise) => exercise.id)
        .sort();
      expect(onPage).toEqual(inRepo);
    },
  );

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
      { exercise: "1. **With.** Do it.", hint: true, solution: false },
      { exercise: "2. **Without.** Do that.", hint: false, solution: false },
    ]);
  });
});
