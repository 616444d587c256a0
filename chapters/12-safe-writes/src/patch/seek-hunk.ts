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
 * Indentation (leading whitespace; blank lines have none of their own) gives a file structure:
 * an `@@ anchor` that opens an indented block narrows the search to that block, and an
 * ambiguity hint names the lines that enclose each candidate.
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
  if (first === lines.length) return undefined; // blank lines up to the end: inside nothing
  const indent = indentation(lines[first]);
  for (let line = index - 1; line >= 0; line--) {
    const text = lines[line];
    if (!isBlank(text) && indentation(text) < indent) return line;
  }
  return undefined;
}

/**
 * Where each line key occurs, per ladder level, built when a level is first needed (most hunks
 * match exactly), in one step per line. A hunk is looked up by its rarest line, not tried at
 * every position of the file: for every hunk, that would cost file × hunks.
 */
export class LineIndex {
  private readonly levels = new Map<MatchLevel, KeyIndex>();

  constructor(readonly lines: readonly string[]) {}

  keys(level: MatchLevel, stats?: { comparisons: number }): KeyIndex {
    let keys = this.levels.get(level);
    if (!keys) {
      keys = new KeyIndex(this.lines.map((line) => lineKey(line, level)));
      if (stats) stats.comparisons += this.lines.length;
      this.levels.set(level, keys);
    }
    return keys;
  }
}

/**
 * One level's index: the lines with the same key form a chain, in file order. `next` is the
 * next line with the same key (or -1), `remaining` how many lines with the key there are
 * from this one on: how common it is. Built from the last line up, each line goes in front.
 */
class KeyIndex {
  private readonly first = new Map<string, number>();
  readonly next: Int32Array;
  readonly remaining: Int32Array;

  constructor(readonly keys: readonly string[]) {
    this.next = new Int32Array(keys.length);
    this.remaining = new Int32Array(keys.length);
    for (let line = keys.length - 1; line >= 0; line--) {
      const after = this.chain(keys[line]);
      this.next[line] = after;
      this.remaining[line] = after === -1 ? 1 : this.remaining[after] + 1;
      this.first.set(keys[line], line);
    }
  }

  chain(key: string): number {
    return this.first.get(key) ?? -1;
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
  /** Counts index steps and line comparisons, so tests can check the work stays linear. */
  stats?: { comparisons: number };
}

/**
 * Finds every place where `pattern` matches inside the window, trying the ladder levels in
 * order and stopping at the first level that matches anywhere. All places are returned,
 * not just the first: applying a hunk at the first of several matches is how patches land
 * in the wrong function. Every match contains the pattern's rarest line, so only the lines
 * of that line's chain can start one, and each is compared in full.
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
    const keys = index.keys(level, options.stats);
    const wanted = pattern.map((line) => lineKey(line, level));
    const rarest = rarestLine(keys, wanted, options.stats);
    const starts: number[] = [];
    for (let line = rarest.first; line !== -1; line = keys.next[line]) {
      if (options.stats) options.stats.comparisons++;
      const start = line - rarest.offset;
      if (start > lastStart) break;
      if (start >= firstStart && matchesAt(keys, wanted, start, options.stats)) starts.push(start);
    }
    if (starts.length > 0) return { level, starts };
  }
  return undefined;
}

/** The wanted line whose key is least common in the file: its offset, and its chain. */
function rarestLine(keys: KeyIndex, wanted: readonly string[], stats: SeekOptions["stats"]) {
  let rarest = { offset: 0, first: -1, count: Infinity };
  wanted.forEach((key, offset) => {
    if (stats) stats.comparisons++;
    const first = keys.chain(key);
    const count = first === -1 ? 0 : keys.remaining[first];
    if (count < rarest.count) rarest = { offset, first, count };
  });
  return rarest;
}

function matchesAt(
  keys: KeyIndex,
  wanted: readonly string[],
  start: number,
  stats: { comparisons: number } | undefined,
): boolean {
  for (let offset = 0; offset < wanted.length; offset++) {
    if (stats) stats.comparisons++;
    if (keys.keys[start + offset] !== wanted[offset]) return false;
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
  const cannot = () =>
    `${base}. The anchor '@@ ${shared}' cannot separate them: every place is inside such a line`;
  while (current.every((line) => line !== undefined)) {
    const enclosing = current as number[];
    const texts = enclosing.map((line) => (lines[line] ?? "").trim());
    if (new Set(texts).size === texts.length) {
      const options = enclosing.map((line, i) => `'@@ ${texts[i]}' (line ${line + 1})`);
      const anchors = `use ${options.join(" or ")} as the anchor`;
      if (shared === undefined) return `${base}: ${anchors}.`;
      return `${cannot()}. Instead ${anchors} (you may keep '@@ ${shared}' as a second anchor after it).`;
    }
    if (new Set(texts).size !== 1) break;
    shared ??= texts[0];
    current = enclosing.map((line) => enclosingLine(lines, line));
  }
  if (shared !== undefined)
    return `${cannot()}, so add context lines that differ between the places.`;
  return `${base}.`;
}
