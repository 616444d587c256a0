// The change a chapter makes to each file of its src/, as a whole-file diff: every line of both
// versions, in order, marked unchanged, added or removed. Placed snippets are cut from it.
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, sep } from "node:path";
import { diffArgs } from "../../../scripts/lib/chapter-diff.ts";
import { listChapters, ROOT } from "../../../scripts/lib/chapters.ts";
import { landmarks } from "./declarations.ts";

export interface DiffLine {
  kind: " " | "+" | "-";
  text: string;
  /** 1-based line in the previous chapter's file (context and removed lines). */
  oldLine?: number;
  /** 1-based line in this chapter's file (context and added lines). */
  newLine?: number;
}

export interface FileChange {
  /** Path inside the chapter, e.g. "src/patch/hash-guard.ts". */
  path: string;
  status: "added" | "deleted" | "modified";
  /** The whole file as a diff: every line of both versions, in order. */
  lines: DiffLine[];
  oldLines: string[];
  newLines: string[];
}

export function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((name) => statSync(join(dir, name)).isFile())
    .map((name) => name.split(sep).join("/"))
    .sort();
}

function textLines(path: string): string[] {
  if (!existsSync(path)) return [];
  const text = readFileSync(path, "utf8");
  const lines = text.split("\n");
  if (text.endsWith("\n")) lines.pop();
  return lines;
}

/** The whole-file diff of two versions, from GNU diff with unlimited context (as `pnpm diff`). */
function wholeFileDiff(oldPath: string, newPath: string): DiffLine[] {
  const result = spawnSync("diff", diffArgs(["-N", "-U", "1000000000"], oldPath, newPath), {
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
  });
  if (result.status !== 0 && result.status !== 1) {
    throw new Error(`diff ${oldPath} ${newPath} failed: ${result.stderr || result.error?.message}`);
  }
  const lines: DiffLine[] = [];
  let inHunk = false;
  for (const raw of result.stdout.split("\n")) {
    if (raw.startsWith("@@")) {
      inHunk = true;
      continue;
    }
    if (!inHunk || raw === "\\ No newline at end of file") continue;
    const kind = raw[0];
    if (kind === " " || kind === "-" || kind === "+") lines.push({ kind, text: raw.slice(1) });
  }
  return unshare(numbered(slideRuns(lines)), textLines(oldPath), textLines(newPath));
}

/** A line with nothing of its own to say: brackets, punctuation, a comment's opening or end. */
const TRIVIAL = /^[\s{}()[\];,]*$|^\s*\/\*\*\s*$|^\s*\*\/\s*$/;

/**
 * When a lesson replaces a declaration with a new one, diff pairs up their common closing
 * brackets, so the new declaration would be shown with its `}` as an unchanged line of the old
 * one. Such a line (brackets, a comment's `/**`) inside a declaration only the new file has is
 * shown as removed where it was and added to the new declaration.
 */
function unshare(lines: DiffLine[], oldLines: string[], newLines: string[]): DiffLine[] {
  const oldNames = new Set(landmarks(oldLines).map((mark) => mark.name));
  const byNewLine = new Map(
    lines.filter((l) => l.newLine !== undefined).map((l) => [l.newLine! - 1, l]),
  );
  // New declarations whose only unchanged lines are trivial: a renamed or moved one shares more.
  const fresh = landmarks(newLines).filter((mark) => {
    if (oldNames.has(mark.name) || mark.last >= newLines.length) return false;
    for (let i = mark.first; i <= mark.last; i++) {
      const line = byNewLine.get(i)!;
      if (line.kind === " " && line.text.trim() !== "" && !TRIVIAL.test(line.text)) return false;
    }
    return true;
  });
  const split = (line: DiffLine) =>
    line.kind === " " &&
    line.text.trim() !== "" &&
    fresh.some((mark) => mark.first <= line.newLine! - 1 && line.newLine! - 1 <= mark.last);
  if (!lines.some(split)) return lines;
  return numbered(
    lines.flatMap((line): DiffLine[] =>
      split(line)
        ? [
            { kind: "-", text: line.text },
            { kind: "+", text: line.text },
          ]
        : [line],
    ),
  );
}

/** Gives each line its place in the old and the new file. */
function numbered(lines: DiffLine[]): DiffLine[] {
  let oldLine = 0;
  let newLine = 0;
  return lines.map(({ kind, text }) => {
    if (kind === " ") return { kind, text, oldLine: ++oldLine, newLine: ++newLine };
    if (kind === "-") return { kind, text, oldLine: ++oldLine };
    return { kind, text, newLine: ++newLine };
  });
}

/** A closing bracket line (`}`, `});`, `]`), which belongs to the block it closes. */
const CLOSES = /^\s*[}\])]/;
/** An opening line (`{`, `(` or `[` at its end), which belongs to the block it opens. */
const OPENS = /[{([]\s*$/;

/** How many more brackets `lines` open than close, strings and line comments left out. */
function balance(lines: string[]): number {
  let depth = 0;
  for (const line of lines) {
    const code = line.replace(/(["'`])(?:\\.|(?!\1).)*\1/g, '""').replace(/\/\/.*$/, "");
    for (const ch of code) {
      if ("{([".includes(ch)) depth++;
      else if ("})]".includes(ch)) depth--;
    }
  }
  return depth;
}

/** How well a run of added lines reads as whole declarations and statements. */
function runScore(run: string[]): number {
  let score = balance(run) === 0 ? 4 : 0;
  if (run[0]!.trim() === "") score += 2;
  if (CLOSES.test(run[0]!)) score -= 3;
  if (OPENS.test(run.at(-1)!)) score -= 3;
  return score;
}

/**
 * Diff may give a new function the closing brace of the one before it, so the page would show
 * `+}` on the wrong function and the new one without its own. Where the same text lets an added
 * run sit elsewhere, it is moved to where it reads best as whole blocks (brackets balanced,
 * starting with a blank line, never with a closing bracket, never ending on an opener):
 * - a run between unchanged lines slides up or down, as far as the texts allow;
 * - the unchanged line after a run can trade places with an equal line inside the run, which
 *   then ends there and a new run starts after it.
 * Removed runs stay where diff put them: a page's line selectors place removals by the line after
 * them, and a removed line is never typed in.
 */
export function slideRuns(input: DiffLine[]): DiffLine[] {
  const lines = input.map((line) => ({ kind: line.kind, text: line.text }));
  const text = (i: number) => lines[i]!.text;
  const texts = (from: number, to: number) => lines.slice(from, to).map((line) => line.text);
  const unchanged = (i: number) => i >= 0 && i < lines.length && lines[i]!.kind === " ";
  for (let start = 0; start < lines.length;) {
    if (lines[start]!.kind !== "+") {
      start++;
      continue;
    }
    let end = start + 1;
    while (end < lines.length && lines[end]!.kind === "+") end++;
    const size = end - start;
    // Whole-run positions: [at, at + size) for `at` in [top, bottom].
    let top = start;
    while (unchanged(top - 1) && text(top - 1) === text(top - 1 + size)) top--;
    let bottom = start;
    while (unchanged(bottom + size) && text(bottom) === text(bottom + size)) bottom++;
    let best = { score: runScore(texts(start, end)), apply: () => end };
    for (let at = top; at <= bottom; at++) {
      const score = runScore(texts(at, at + size));
      if (score <= best.score) continue;
      best = {
        score,
        apply: () => {
          for (let i = Math.min(start, at); i < Math.max(end, at + size); i++) {
            lines[i]!.kind = i >= at && i < at + size ? "+" : " ";
          }
          return Math.max(end, at + size);
        },
      };
    }
    // Trades: line k (added) and line `end` (unchanged, the same text) swap roles.
    for (let k = start + 1; unchanged(end) && k < end; k++) {
      if (text(k) !== text(end)) continue;
      const score = runScore(texts(k + 1, end + 1));
      if (score <= best.score) continue;
      best = {
        score,
        apply: () => {
          lines[k]!.kind = " ";
          lines[end]!.kind = "+";
          return k + 1;
        },
      };
    }
    start = best.apply();
  }
  return lines;
}

function changeOf(path: string, oldPath: string | undefined, newPath: string): FileChange {
  const oldLines = oldPath === undefined ? [] : textLines(oldPath);
  const newLines = textLines(newPath);
  const status =
    oldPath === undefined || !existsSync(oldPath)
      ? "added"
      : !existsSync(newPath)
        ? "deleted"
        : "modified";
  const lines =
    status === "added"
      ? newLines.map((text, i): DiffLine => ({ kind: "+", text, newLine: i + 1 }))
      : status === "deleted"
        ? oldLines.map((text, i): DiffLine => ({ kind: "-", text, oldLine: i + 1 }))
        : wholeFileDiff(oldPath!, newPath);
  return { path, status, lines, oldLines, newLines };
}

function sameText(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((line, i) => line === b[i]);
}

function sameBytes(a: string, b: string): boolean {
  return existsSync(a) && existsSync(b) && readFileSync(a).equals(readFileSync(b));
}

/** Every file of `src/` that chapter `to` adds, deletes or changes against chapter `from`. */
export function chapterChanges(from: string | undefined, to: string): FileChange[] {
  const oldDir = from === undefined ? undefined : join(ROOT, "chapters", from, "src");
  const newDir = join(ROOT, "chapters", to, "src");
  const paths = new Set([...(oldDir ? filesUnder(oldDir) : []), ...filesUnder(newDir)]);
  const changes: FileChange[] = [];
  for (const file of [...paths].sort()) {
    const oldPath = oldDir ? join(oldDir, file) : undefined;
    // Most files are the previous chapter's, byte for byte: no diff to run for them.
    if (oldPath !== undefined && sameBytes(oldPath, join(newDir, file))) continue;
    const change = changeOf(`src/${file}`, oldPath, join(newDir, file));
    if (change.status === "modified" && sameText(change.oldLines, change.newLines)) continue;
    changes.push(change);
  }
  return changes;
}

/** The change between two texts of one file, as chapterChanges sees it: for tests. */
export function changeOfTexts(
  path: string,
  oldText: string | undefined,
  newText: string | undefined,
): FileChange {
  const dir = mkdtempSync(join(tmpdir(), "placed-"));
  try {
    const oldPath = join(dir, "old");
    const newPath = join(dir, "new");
    if (oldText !== undefined) writeFileSync(oldPath, oldText);
    if (newText !== undefined) writeFileSync(newPath, newText);
    return changeOf(path, oldText === undefined ? undefined : oldPath, newPath);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A changed line that counts: blank lines do not, as in `pnpm chapters:check`. */
export function counts(line: DiffLine): boolean {
  return line.kind !== " " && line.text.trim() !== "";
}

/** A changed line's identity within its chapter, for coverage. */
export function lineKey(path: string, line: DiffLine): string {
  return line.kind === "+" ? `${path}:+${line.newLine}` : `${path}:-${line.oldLine}`;
}

/** The chapter before `slug` (undefined for the first), from chapters/. */
export function previousSlug(slug: string): string | undefined {
  const chapters = listChapters();
  const index = chapters.findIndex((chapter) => chapter.slug === slug);
  if (index === -1) throw new Error(`no chapter ${slug} in chapters/`);
  return chapters[index - 1]?.slug;
}

const changesCache = new Map<string, FileChange[]>();

/** A chapter's changes, computed once per process (a build renders each page once). */
export function changesOf(slug: string): FileChange[] {
  let changes = changesCache.get(slug);
  if (changes === undefined) {
    changes = chapterChanges(previousSlug(slug), slug);
    changesCache.set(slug, changes);
  }
  return changes;
}

export function findChange(slug: string, path: string): FileChange {
  const change = changesOf(slug).find((c) => c.path === path);
  if (change === undefined) {
    throw new Error(
      `${path} does not change in chapter ${slug}` +
        (existsSync(join(ROOT, "chapters", slug, path))
          ? " (it is the same as in the chapter before)."
          : " (no such file)."),
    );
  }
  return change;
}
