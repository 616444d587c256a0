import { spawnSync } from "node:child_process";
import { join } from "node:path";

// The one diff command behind `pnpm diff A B` and the diffs on the site, so the two always agree.
// GNU `diff -ruN`, run from the repository root. Each chapter's README.md and chapter.json are left
// out: they describe the lesson, they are not it.

export const DIFF_EXCLUDED = ["node_modules", "README.md", "chapter.json", ".agent"];

/** Arguments for `diff`: `options` (e.g. "-ruN"), colour, the exclusions, then the two paths. */
export function diffArgs(
  options: string[],
  a: string,
  b: string,
  color: "always" | "never" = "never",
): string[] {
  return [...options, `--color=${color}`, ...DIFF_EXCLUDED.flatMap((name) => ["-x", name]), a, b];
}

/** One lesson's size at most: what a reader can build and understand in one sitting. */
export const MAX_LESSON_LINES = 700;

/**
 * The lines a chapter's src/ adds or removes against the previous chapter's, counted as
 * `diff -ruN A/src B/src | grep -c '^[+-][^+-]'` counts them: blank lines and the file headers
 * do not count.
 */
export function changedSrcLines(previousDir: string, nextDir: string): number {
  const result = spawnSync(
    "diff",
    diffArgs(["-ruN"], join(previousDir, "src"), join(nextDir, "src")),
    { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
  );
  if (result.status !== 0 && result.status !== 1) {
    throw new Error(`diff failed: ${result.stderr || result.error?.message}`);
  }
  return result.stdout.split("\n").filter((line) => /^[+-][^+-]/.test(line)).length;
}
