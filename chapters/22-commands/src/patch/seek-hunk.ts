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
export function blockEnd(lines: LineIndex, index: number): number {
  const openerIndent = indentation(lines.line(index));
  let next = index + 1;
  while (next < lines.length && isBlank(lines.line(next))) next++;
  if (next >= lines.length || indentation(lines.line(next)) <= openerIndent) return lines.length;
  for (let line = next; line < lines.length; line++) {
    const text = lines.line(line);
    if (!isBlank(text) && indentation(text) <= openerIndent) return line + 1;
  }
  return lines.length;
}

/**
 * The nearest line above `index` with less indentation than the first non-blank line from
 * `index` on: the `render() {` around a method body, the `class B {` around `render() {`.
 */
export function enclosingLine(lines: LineIndex, index: number): number | undefined {
  let first = index;
  while (first < lines.length && isBlank(lines.line(first))) first++;
  if (first === lines.length) return undefined; // blank lines up to the end: inside nothing
  const indent = indentation(lines.line(first));
  for (let line = index - 1; line >= 0; line--) {
    const text = lines.line(line);
    if (!isBlank(text) && indentation(text) < indent) return line;
  }
  return undefined;
}

/**
 * A file's lines and, per ladder level, an index of where each line key occurs. A hunk is
 * looked up by its rarest line instead of tried at every position, which for many hunks costs
 * file × hunks. Lines stay in the file's text, not copied into an array of strings, and each
 * level is indexed when first needed: most hunks match exactly.
 */
export class LineIndex {
  private readonly levels = new Map<MatchLevel, KeyIndex>();

  constructor(
    readonly text: string,
    /** Line i is `text.slice(starts[i], ends[i])`, without its line break. */
    readonly starts: Int32Array,
    readonly ends: Int32Array,
  ) {}

  get length(): number {
    return this.starts.length;
  }

  line(index: number): string {
    return this.text.slice(this.starts[index], this.ends[index]);
  }

  /** One level's index; building it counts one step per line. */
  keys(level: MatchLevel, stats?: { comparisons: number }): KeyIndex {
    let keys = this.levels.get(level);
    if (!keys) {
      keys = new KeyIndex(this, level);
      if (stats) stats.comparisons += this.length;
      this.levels.set(level, keys);
    }
    return keys;
  }
}

const FNV_OFFSET = 0x811c9dc5 | 0; // signed 32 bits, as an Int32Array stores it
const FNV_PRIME = 0x01000193;

/** FNV-1a: equal keys hash alike, and different keys almost never do. */
export function hashText(text: string, start = 0, end = text.length): number {
  let hash = FNV_OFFSET;
  for (let i = start; i < end; i++) hash = Math.imul(hash ^ text.charCodeAt(i), FNV_PRIME);
  return hash;
}

const CHUNK = 1 << 16;
/** UTF-16 written as bytes reads back as code units only where the machine is little-endian. */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * hashText for every line, read from a copy of the text instead of with `charCodeAt`: each
 * `charCodeAt` is a call, indexing a typed array is not, and that halves the time of the whole
 * index (12 ms against 6 ms for 100,000 lines, measured). The copy is made a chunk at a time into
 * one reused array of UTF-16 code units, the values `charCodeAt` returns, so the hashes are equal.
 */
function hashLines(text: string, starts: Int32Array, ends: Int32Array, hashes: Int32Array): void {
  if (!LITTLE_ENDIAN) {
    for (let line = 0; line < hashes.length; line++) {
      hashes[line] = hashText(text, starts[line], ends[line]);
    }
    return;
  }
  let units = new Uint16Array(CHUNK);
  let base = 0; // `units` holds text[base, limit)
  let limit = 0;
  for (let line = 0; line < hashes.length; line++) {
    const start = starts[line];
    const end = ends[line];
    if (end > limit) {
      base = start;
      limit = Math.min(text.length, Math.max(start + CHUNK, end));
      if (limit - base > units.length) units = new Uint16Array(limit - base); // a very long line
      const bytes = Buffer.from(units.buffer, units.byteOffset, units.byteLength);
      bytes.write(text.slice(base, limit), "utf16le");
    }
    let hash = FNV_OFFSET;
    for (let i = start - base; i < end - base; i++) hash = Math.imul(hash ^ units[i], FNV_PRIME);
    hashes[line] = hash;
  }
}

/**
 * One level's index: lines whose keys hash alike are chained in file order by `next`, and a
 * hash table of typed arrays (a `Map` of a million lines costs several times the time and
 * memory) finds each chain's first line. A hash only says "maybe equal", so a line found
 * here is still compared.
 */
class KeyIndex {
  private readonly hashes: Int32Array;
  /** Open addressing, at most half full: each slot holds the first line of a chain, or -1. */
  private readonly slots: Int32Array;
  readonly next: Int32Array;
  /** How many lines of its chain there are from this line on: how common its key is. */
  readonly remaining: Int32Array;

  constructor(
    private readonly file: LineIndex,
    readonly level: MatchLevel,
  ) {
    const { text, starts, ends, length } = file;
    this.hashes = new Int32Array(length);
    this.next = new Int32Array(length);
    this.remaining = new Int32Array(length);
    this.slots = new Int32Array(4 << Math.log2(length + 1)).fill(-1);
    // Every line hashed first. An exact key is the line itself, hashed where it is in the text,
    // without cutting it out.
    if (level === "exact") hashLines(text, starts, ends, this.hashes);
    else for (let line = 0; line < length; line++) this.hashes[line] = hashText(this.key(line));
    // Then chained from the last line up, so that each line goes in front of the later ones.
    for (let line = length - 1; line >= 0; line--) {
      const slot = this.slotOf(this.hashes[line]);
      const after = this.slots[slot];
      this.next[line] = after;
      this.remaining[line] = after === -1 ? 1 : this.remaining[after] + 1;
      this.slots[slot] = line;
    }
  }

  /** The slot of the chain of `hash`, or the empty one where it would start. */
  private slotOf(hash: number): number {
    let slot = hash & (this.slots.length - 1);
    while (this.slots[slot] !== -1 && this.hashes[this.slots[slot]] !== hash) {
      slot = (slot + 1) & (this.slots.length - 1);
    }
    return slot;
  }

  /** The first line whose key may equal `key`, or -1. */
  chain(key: string): number {
    return this.slots[this.slotOf(hashText(key))];
  }

  key(line: number): string {
    return lineKey(this.file.line(line), this.level);
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
    if (keys.key(start + offset) !== wanted[offset]) return false;
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
export function ambiguityHint(lines: LineIndex, starts: readonly number[]): string {
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
    const texts = enclosing.map((line) => lines.line(line).trim());
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
