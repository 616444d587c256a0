import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./chapters.ts";

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
 * do not count. In `lines` a file the chapter deletes counts as one line: the reader's step is
 * "delete it", with nothing to read or type (chapter 9 deletes chapter 3's edit_file when
 * apply_patch replaces it). `raw` is the plain count, deletions included. One diff for both.
 */
export function lessonSize(previousDir: string, nextDir: string): { lines: number; raw: number } {
  const diff = srcDiff(previousDir, nextDir);
  return {
    lines: countChangedLines(diff, (file) => existsSync(join(nextDir, "src", file))),
    raw: countChangedLines(diff, () => true),
  };
}

function srcDiff(previousDir: string, nextDir: string): string {
  const result = spawnSync(
    "diff",
    diffArgs(["-ruN"], join(previousDir, "src"), join(nextDir, "src")),
    { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
  );
  if (result.status !== 0 && result.status !== 1) {
    throw new Error(`diff failed: ${result.stderr || result.error?.message}`);
  }
  return result.stdout;
}

/** Changed lines per file section of a `diff -ruN`; a file that no longer exists counts once. */
function countChangedLines(diff: string, exists: (file: string) => boolean): number {
  let total = 0;
  for (const section of diff.split(/^(?=diff )/m)) {
    const header = /^diff .* \S+\/src\/(\S+)$/m.exec(section);
    const lines = section.split("\n").filter((line) => /^[+-][^+-]/.test(line)).length;
    total += header?.[1] !== undefined && !exists(header[1]) ? Math.min(lines, 1) : lines;
  }
  return total;
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
      // Show paths inside the chapter: "chapters/13-multi-file-patches/src/main.ts" -> "src/main.ts".
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
