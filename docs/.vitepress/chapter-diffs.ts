// Writes docs/generated/NN.diff: what chapter NN's lesson changed in src/ relative to chapter NN-1,
// and NN.stat: one line per source and test file it changed (A added, M modified, D deleted, with
// line counts), the overview a page shows above the full diff. Generated on every `vitepress
// build`/`dev` start from the real packages, so a page can never disagree with the code.
//
// The diff is made by the same command as `pnpm diff A B` (scripts/lib/chapter-diff.ts: GNU
// `diff -ruN` with the same exclusions), so the page shows exactly the hunks a reader sees in the terminal; only the
// file times in the `---`/`+++` lines are dropped (they change with every checkout).
// test/site/chapter-diffs.test.ts holds the two to each other. Chapter 01 has no predecessor: its
// diff adds every file.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cleanDiff, diffArgs, diffStat } from "../../scripts/lib/chapter-diff.ts";

export { cleanDiff, diffStat };
import { DOCS_DIR, ROOT, type SiteChapter } from "./chapters.ts";

export const GENERATED_DIR = join(DOCS_DIR, "generated");

/** Runs GNU diff from the repository root; it exits 1 when the inputs differ, the normal case. */
function gnuDiff(options: string[], a: string, b: string): string {
  const result = spawnSync("diff", diffArgs(options, a, b), {
    cwd: ROOT,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0 && result.status !== 1) {
    throw new Error(`diff ${a} ${b} failed: ${result.stderr || result.error?.message}`);
  }
  return result.stdout;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const full = join(dir, name);
      return statSync(full).isDirectory() ? filesUnder(full) : [full];
    });
}

/** What `to` changed in its folder `sub` ("src" or "test") relative to `from`, or all of it. */
export function chapterDiff(from: string | undefined, to: string, sub = "src"): string {
  const target = `chapters/${to}/${sub}`;
  if (from !== undefined) return cleanDiff(gnuDiff(["-ruN"], `chapters/${from}/${sub}`, target));
  if (!existsSync(join(ROOT, target))) return "";
  return filesUnder(join(ROOT, target))
    .map((file) => {
      const path = file.slice(ROOT.length + 1);
      return `diff -ruN /dev/null ${path}\n` + cleanDiff(gnuDiff(["-uN"], "/dev/null", path));
    })
    .join("");
}

export function writeChapterDiffs(chapters: SiteChapter[]): void {
  mkdirSync(GENERATED_DIR, { recursive: true });
  chapters.forEach((chapter, i) => {
    const previous = chapters[i - 1]?.slug;
    const src = chapterDiff(previous, chapter.slug, "src");
    const tests = chapterDiff(previous, chapter.slug, "test");
    const name = String(chapter.number).padStart(2, "0");
    writeFileSync(join(GENERATED_DIR, `${name}.diff`), src || "# no changes in src/\n");
    writeFileSync(join(GENERATED_DIR, `${name}.stat`), diffStat(src + tests));
  });
}
