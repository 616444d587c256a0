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
import { diffArgs } from "../../scripts/lib/chapter-diff.ts";
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

/**
 * The parts of a `diff -ruN` output a reader needs: each file's `diff` line without the command's
 * options, and its `---`/`+++` lines without the file times. Hunks are left exactly as they are.
 */
export function cleanDiff(diff: string): string {
  return diff
    .replace(/^diff .* (\S+) (\S+)$/gm, "diff -ruN $1 $2")
    .replace(/^(---|\+\+\+) (\S+)\t.*$/gm, "$1 $2");
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

/**
 * The per-file summary of a cleaned diff. Whether a file was added or deleted is read from the
 * disk: `diff -N` shows a missing file as an empty one.
 */
export function diffStat(
  diff: string,
  exists = (path: string) => existsSync(join(ROOT, path)),
): string {
  const files: Array<{ kind: string; path: string; added: number; removed: number }> = [];
  for (const line of diff.split("\n")) {
    const header = /^diff -ruN (\S+) (\S+)$/.exec(line);
    const current = files.at(-1);
    if (header) {
      const [from, to] = [header[1]!, header[2]!];
      const kind = from === "/dev/null" || !exists(from) ? "A" : !exists(to) ? "D" : "M";
      // Show paths inside the chapter: "chapters/09-multi-file-patches/src/main.ts" -> "src/main.ts".
      files.push({ kind, path: to.replace(/^chapters\/[^/]+\//, ""), added: 0, removed: 0 });
    } else if (current === undefined) {
      continue;
    } else if (line.startsWith("+") && !line.startsWith("+++ ")) current.added++;
    else if (line.startsWith("-") && !line.startsWith("--- ")) current.removed++;
  }
  const width = Math.max(0, ...files.map((file) => file.path.length));
  const lines = files.map(({ kind, path, added, removed }) =>
    `${kind} ${path.padEnd(width)}  ${added > 0 ? `+${added}` : ""}${added > 0 && removed > 0 ? " " : ""}${removed > 0 ? `-${removed}` : ""}`.trimEnd(),
  );
  const added = files.reduce((sum, file) => sum + file.added, 0);
  const removed = files.reduce((sum, file) => sum + file.removed, 0);
  const count = files.length === 1 ? "1 file" : `${files.length} files`;
  return [...lines, `${count} changed, ${added} lines added, ${removed} removed`].join("\n") + "\n";
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
