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
