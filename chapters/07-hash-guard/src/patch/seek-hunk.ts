import type { MatchLevel } from "./patch-types.ts";

/**
 * The matching ladder, strictest first. A hunk is looked for at each level in turn and
 * the first level that finds it wins, so a loose comparison never beats an exact one.
 */
export const MATCH_LEVELS: readonly MatchLevel[] = [
  "exact",
  "trailing_whitespace",
  "surrounding_whitespace",
  "punctuation",
];

// Models often "type" typographic characters that editors and word processors produce:
// dashes, curly quotes and non-breaking spaces where the file has plain ASCII.
const DASHES = /[\u2010-\u2015\u2212]/g;
const SINGLE_QUOTES = /[\u2018\u2019\u201A\u201B]/g;
const DOUBLE_QUOTES = /[\u201C\u201D\u201E\u201F]/g;
const ODD_SPACES = /[\u00A0\u2000-\u200A\u202F\u205F\u3000]/g;

/** The form of a line that is compared at the given level. */
export function lineKey(line: string, level: MatchLevel): string {
  switch (level) {
    case "exact":
      return line;
    case "trailing_whitespace":
      return line.trimEnd();
    case "surrounding_whitespace":
      return line.trim();
    case "punctuation":
      return line
        .replace(DASHES, "-")
        .replace(SINGLE_QUOTES, "'")
        .replace(DOUBLE_QUOTES, '"')
        .replace(ODD_SPACES, " ")
        .trim();
  }
}

/**
 * The indentation structure of a file, used in two places: an `@@ anchor` that opens an
 * indented block (a class, a function) narrows the search to that block, and an ambiguity
 * hint names the lines that enclose each candidate.
 *
 * Indentation is the number of leading whitespace characters; blank lines are skipped
 * because they carry no indentation of their own.
 */
function indentation(line: string): number {
  return line.length - line.trimStart().length;
}

function isBlank(line: string): boolean {
  return line.trim() === "";
}

/**
 * Where the block opened by the line at `index` ends (exclusive), or `lines.length` when the
 * line opens no block. The closing line (a `}` at the opener's indentation, or the next
 * sibling in Python) is included: hunks often use it as context.
 */
export function blockEnd(lines: readonly string[], index: number): number {
  const openerIndent = indentation(lines[index]);
  let next = index + 1;
  while (next < lines.length && isBlank(lines[next])) next++;
  if (next >= lines.length || indentation(lines[next]) <= openerIndent) return lines.length;
  for (let line = next; line < lines.length; line++) {
    const text = lines[line];
    if (!isBlank(text) && indentation(text) <= openerIndent) return line + 1;
  }
  return lines.length;
}

/**
 * The nearest line above `index` with less indentation than the first non-blank line from
 * `index` on: the `render() {` around a method body, the `class B {` around `render() {`.
 */
export function enclosingLine(lines: readonly string[], index: number): number | undefined {
  let first = index;
  while (first < lines.length && isBlank(lines[first])) first++;
  const indent = indentation(lines[first]);
  for (let line = index - 1; line >= 0; line--) {
    const text = lines[line];
    if (!isBlank(text) && indentation(text) < indent) return line;
  }
  return undefined;
}

/**
 * The file's lines in the form each ladder level compares, computed once per level and
 * reused by every hunk and anchor: normalising the file again for each search would make
 * a many-hunk patch quadratic in the file size.
 */
export class LineIndex {
  private readonly keysByLevel = new Map<MatchLevel, string[]>();

  constructor(readonly lines: readonly string[]) {}

  keys(level: MatchLevel): string[] {
    let keys = this.keysByLevel.get(level);
    if (!keys) {
      keys = this.lines.map((line) => lineKey(line, level));
      this.keysByLevel.set(level, keys);
    }
    return keys;
  }
}

/** Line indexes [start, end) that a match must lie in entirely. */
export interface SearchWindow {
  start: number;
  end: number;
}

export interface SeekResult {
  level: MatchLevel;
  /** Every 0-based line where the pattern starts: more than one means the hunk is ambiguous. */
  starts: number[];
}

export interface SeekOptions {
  /** The match must end at the window's end ("*** End of File"). */
  atEnd?: boolean;
  /** Counts line comparisons, so tests can check the work stays O(file × hunk). */
  stats?: { comparisons: number };
}

/**
 * Finds every place where `pattern` matches inside the window, trying the ladder levels in
 * order and stopping at the first level that matches anywhere. All places are returned,
 * not just the first: applying a hunk at the first of several matches is how patches land
 * in the wrong function.
 */
export function seekLines(
  index: LineIndex,
  pattern: readonly string[],
  window: SearchWindow,
  options: SeekOptions = {},
): SeekResult | undefined {
  const lastStart = window.end - pattern.length;
  const firstStart = options.atEnd ? lastStart : window.start;
  if (pattern.length === 0 || lastStart < window.start) return undefined;
  for (const level of MATCH_LEVELS) {
    const keys = index.keys(level);
    const wanted = pattern.map((line) => lineKey(line, level));
    const starts: number[] = [];
    for (let start = firstStart; start <= lastStart; start++) {
      if (matchesAt(keys, wanted, start, options.stats)) starts.push(start);
    }
    if (starts.length > 0) return { level, starts };
  }
  return undefined;
}

function matchesAt(
  keys: readonly string[],
  wanted: readonly string[],
  start: number,
  stats: { comparisons: number } | undefined,
): boolean {
  for (let offset = 0; offset < wanted.length; offset++) {
    if (stats) stats.comparisons++;
    if (keys[start + offset] !== wanted[offset]) return false;
  }
  return true;
}

/** At most this many candidates are listed; a hunk matching 300 `}` lines needs no full list. */
const MAX_LISTED = 10;

/** "3, 11 and 19" — 1-based line numbers, shortened when there are many. */
export function listLineNumbers(starts: readonly number[]): string {
  const numbers = starts.slice(0, MAX_LISTED).map((start) => String(start + 1));
  if (starts.length > MAX_LISTED)
    return `${numbers.join(", ")} and ${starts.length - MAX_LISTED} more`;
  if (numbers.length === 1) return numbers[0] ?? "";
  return `${numbers.slice(0, -1).join(", ")} and ${numbers.at(-1)}`;
}

/**
 * The next step for a hunk that matched at several places. The obvious fix, an `@@` anchor
 * on the line around the change, fails when every candidate sits inside an identical line
 * (two classes with the same `render() {` method), so the hint walks outwards until the
 * enclosing lines differ and names those.
 */
export function ambiguityHint(lines: readonly string[], starts: readonly number[]): string {
  const base =
    "Add unchanged lines above or below the change that occur only at the intended place, " +
    "or an '@@' anchor line that is unique in the file";
  const candidates = starts.slice(0, MAX_LISTED);
  let current: (number | undefined)[] = candidates.map((start) => enclosingLine(lines, start));
  let shared: string | undefined;
  while (current.every((line) => line !== undefined)) {
    const enclosing = current as number[];
    const texts = enclosing.map((line) => (lines[line] ?? "").trim());
    if (new Set(texts).size === texts.length) {
      const options = enclosing.map((line, i) => `'@@ ${texts[i]}' (line ${line + 1})`);
      const anchors = `use ${options.join(" or ")} as the anchor`;
      if (shared === undefined) return `${base}: ${anchors}.`;
      return (
        `${base}. The anchor '@@ ${shared}' cannot separate them: every place is inside such a ` +
        `line. Instead ${anchors}` +
        ` (you may keep '@@ ${shared}' as a second anchor after it).`
      );
    }
    if (new Set(texts).size !== 1) break;
    shared ??= texts[0];
    current = enclosing.map((line) => enclosingLine(lines, line));
  }
  if (shared !== undefined) {
    return (
      `${base}. The anchor '@@ ${shared}' cannot separate them: every place is inside such a line, ` +
      `so add context lines that differ between the places.`
    );
  }
  return `${base}.`;
}
