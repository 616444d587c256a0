// The diff on each chapter page (docs/.vitepress/chapter-diffs.ts) must be exactly what a reader
// sees with `pnpm diff A B` for src/, so the page and the terminal can never tell two stories.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, test } from "vitest";
import { chapterDiff, cleanDiff, diffStat } from "../../docs/.vitepress/chapter-diffs.ts";
import { listSiteChapters } from "../../docs/.vitepress/chapters.ts";
import { ROOT } from "./site-pages.ts";

const chapters = listSiteChapters();
const pairs = chapters.slice(1).map((chapter, i) => [chapters[i]!.slug, chapter.slug] as const);

/** The src/ part of `pnpm diff A B`: its script, run without colour (not a terminal), in one Node. */
async function pnpmDiffOfSrc(a: string, b: string): Promise<string> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      "--import",
      import.meta.resolve("tsx"),
      join(ROOT, "scripts", "diff.ts"),
      a.slice(0, 2),
      b.slice(0, 2),
    ],
    { cwd: ROOT, env: { ...process.env, NO_COLOR: "1" }, maxBuffer: 64 * 1024 * 1024 },
  );
  return stdout
    .split(/^(?=diff )/m)
    .filter((section) => / chapters\/[^/\s]+\/src\/\S+\n/.test(section.split("\n")[0] + "\n"))
    .join("");
}

/** What `pnpm diff ARGS` prints when stdout is not a terminal. */
async function pnpmDiff(...args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--import", import.meta.resolve("tsx"), join(ROOT, "scripts", "diff.ts"), ...args],
    { cwd: ROOT, env: { ...process.env, NO_COLOR: "1" }, maxBuffer: 64 * 1024 * 1024 },
  );
  return stdout;
}

describe("pnpm diff", () => {
  test("a PATH naming one file gets the same summary and header as a folder's files", async () => {
    const stdout = await pnpmDiff("9", "10", "src/patch/patch-types.ts");
    expect(stdout).toMatch(
      /^M src\/patch\/patch-types\.ts +\+\d+\n1 file changed, \d+ lines added, 0 removed\n\ndiff -ruN chapters\/09-patch-format\/src\/patch\/patch-types\.ts chapters\/10-finding-hunks\/src\/patch\/patch-types\.ts\n--- /,
    );
  });

  test("reads like git diff: the changed files first, then clean hunks, limited to a path", async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        "--import",
        import.meta.resolve("tsx"),
        join(ROOT, "scripts", "diff.ts"),
        "9",
        "10",
        "src/patch",
      ],
      { cwd: ROOT, env: { ...process.env, NO_COLOR: "1" }, maxBuffer: 64 * 1024 * 1024 },
    );
    const [stat, ...sections] = stdout.split(/^(?=diff )/m);
    expect(stat).toMatch(/^M src\/patch\/seek-hunk\.ts +\+\d+/m);
    expect(stat).toMatch(/^\d+ files changed, \d+ lines added, \d+ removed\n\n$/m);
    expect(sections.length).toBeGreaterThan(0);
    for (const section of sections) {
      // Only the path asked for, and headers without diff's flags or file times.
      expect(section).toMatch(
        /^diff -ruN chapters\/09-patch-format\/src\/patch\/\S+ chapters\/10-finding-hunks\/src\/patch\/\S+\n--- \S+\n\+\+\+ \S+\n@@ /,
      );
    }
  });
});

describe("chapter diffs on the site", () => {
  test.each(pairs)("chapter %s -> %s shows what pnpm diff shows for src/", async (a, b) => {
    const page = chapterDiff(a, b);
    expect(page).toMatch(/^\+\+\+ /m);
    expect(page).toBe(cleanDiff(await pnpmDiffOfSrc(a, b)));
  });

  test("cleaning drops the command's options and the file times, nothing else", () => {
    const raw = [
      "diff -ruN '--color=never' -x node_modules chapters/01-a/src/x.ts chapters/02-b/src/x.ts",
      "--- chapters/01-a/src/x.ts\t2026-11-30 07:16:06.985269257 +0000",
      "+++ chapters/02-b/src/x.ts\t2026-11-30 07:20:00.000000000 +0000",
      "@@ -1,2 +1,2 @@",
      "--- a removed line that looks like a header",
      "+++ an added one",
      " context",
      "",
    ].join("\n");
    expect(cleanDiff(raw)).toBe(
      [
        "diff -ruN chapters/01-a/src/x.ts chapters/02-b/src/x.ts",
        "--- chapters/01-a/src/x.ts",
        "+++ chapters/02-b/src/x.ts",
        "@@ -1,2 +1,2 @@",
        "--- a removed line that looks like a header",
        "+++ an added one",
        " context",
        "",
      ].join("\n"),
    );
  });

  test("the stat says added, modified or deleted and counts the lines", () => {
    const diff = [
      "diff -ruN chapters/01-a/src/new.ts chapters/02-b/src/new.ts",
      "--- chapters/01-a/src/new.ts",
      "+++ chapters/02-b/src/new.ts",
      "@@ -0,0 +1,2 @@",
      "+one",
      "+two",
      "diff -ruN chapters/01-a/src/old.ts chapters/02-b/src/old.ts",
      "--- chapters/01-a/src/old.ts",
      "+++ chapters/02-b/src/old.ts",
      "@@ -1 +0,0 @@",
      "-gone",
      "diff -ruN chapters/01-a/test/x.test.ts chapters/02-b/test/x.test.ts",
      "--- chapters/01-a/test/x.test.ts",
      "+++ chapters/02-b/test/x.test.ts",
      "@@ -1 +1 @@",
      "-before",
      "+after",
      "",
    ].join("\n");
    const onDisk = new Set([
      "chapters/01-a/src/old.ts",
      "chapters/01-a/test/x.test.ts",
      "chapters/02-b/src/new.ts",
      "chapters/02-b/test/x.test.ts",
    ]);
    expect(diffStat(diff, (path) => onDisk.has(path))).toBe(
      [
        "A src/new.ts      +2",
        "D src/old.ts      -1",
        "M test/x.test.ts  +1 -1",
        "3 files changed, 3 lines added, 2 removed",
        "",
      ].join("\n"),
    );
  });
});
