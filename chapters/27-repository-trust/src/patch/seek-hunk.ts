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
    /** The lines that will be looked up, when they are known before the first look-up. */
    private readonly wanted?: readonly string[],
  ) {}

  get length(): number {
    return this.starts.length;
  }

  line(index: number): string {
    return this.text.slice(this.starts[index], this.ends[index]);
  }

  /**
   * One level's index, able to look up `keys`; building it counts one step per line. An index of
   * the wanted lines that is asked for another key is replaced by one of every line.
   */
  keys(level: MatchLevel, stats?: { comparisons: number }, keys: readonly string[] = []): KeyIndex {
    let index = this.levels.get(level);
    if (!index || !index.covers(keys)) {
      const wanted = index ? undefined : this.wanted?.map((line) => lineKey(line, level));
      index = new KeyIndex(this, level, wanted);
      if (stats) stats.comparisons += this.length;
      this.levels.set(level, index);
    }
    return index;
  }
}

/**
 * MurmurHash3 (its 32-bit x86 version, seed 0) of the bytes from `from` to `to`, read four at a
 * time as one number: equal keys hash alike, and different keys almost never do. Each step mixes
 * its four bytes with two multiplications and a rotation, so that every bit of them reaches every
 * bit of the hash; the last step spreads the result once more. `view` reads the same bytes.
 */
export function hashBytes(bytes: Uint8Array, view: DataView, from: number, to: number): number {
  let hash = 0;
  let i = from;
  let word = 0;
  for (; i + 4 <= to; i += 4) {
    word = Math.imul(view.getInt32(i, true), 0xcc9e2d51);
    hash ^= Math.imul((word << 15) | (word >>> 17), 0x1b873593);
    hash = (hash << 13) | (hash >>> 19);
    hash = (Math.imul(hash, 5) + 0xe6546b64) | 0;
  }
  if (i < to) {
    word = 0; // the one to three bytes left, the first one lowest
    for (let j = to - 1; j >= i; j--) word = (word << 8) | bytes[j];
    word = Math.imul(word, 0xcc9e2d51);
    hash ^= Math.imul((word << 15) | (word >>> 17), 0x1b873593);
  }
  hash ^= to - from;
  hash = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b);
  hash = Math.imul(hash ^ (hash >>> 13), 0xc2b2ae35);
  return hash ^ (hash >>> 16);
}

/**
 * The hash of a key: of the low 8 bits of each of its characters, the bytes that `hashLines`
 * hashes. Characters above 255 share their low bits with others; that makes a collision more
 * likely for some lines, never a wrong match (see `matchesAt`).
 */
export function hashText(text: string): number {
  return hashKeys([text])[0];
}

const CHUNK = 1 << 16;
// One buffer for all the hashing, grown for a line longer than it: hashing makes no garbage.
let chunk = Buffer.allocUnsafe(CHUNK);

/**
 * hashText for every line, without cutting the lines out: the text is copied a chunk at a time
 * into the buffer, as "latin1", which writes the low 8 bits of every character, and each line is
 * hashed where it lies in the chunk. A chunk starts at a line, so no line straddles two.
 */
function hashLines(text: string, starts: Int32Array, ends: Int32Array, hashes: Int32Array): void {
  let bytes = chunk;
  let view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  let base = 0; // `bytes` holds text[base, limit)
  let limit = 0;
  for (let line = 0; line < hashes.length; line++) {
    const start = starts[line];
    const end = ends[line];
    if (end > limit) {
      base = start;
      limit = Math.min(text.length, Math.max(start + CHUNK, end));
      if (limit - base > bytes.length) {
        bytes = chunk = Buffer.allocUnsafe(limit - base); // a very long line
        view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
      }
      bytes.write(text.slice(base, limit), 0, "latin1");
    }
    hashes[line] = hashBytes(bytes, view, start - base, end - base);
  }
}

/** The hashes of keys, by the loop that hashes the lines: over the keys' text, joined. */
function hashKeys(keys: readonly string[]): Int32Array {
  const [starts, ends] = [new Int32Array(keys.length), new Int32Array(keys.length)];
  let at = 0;
  keys.forEach((key, i) => {
    starts[i] = at;
    ends[i] = at + key.length;
    at += key.length + 1;
  });
  const hashes = new Int32Array(keys.length);
  hashLines(keys.join("\n"), starts, ends, hashes);
  return hashes;
}

const KEY_BATCH = 4096;

/**
 * One level's index: lines whose keys hash alike are chained in file order by `next`, and a
 * hash table of typed arrays (a `Map` of a million lines costs several times the time and
 * memory) finds each chain's first line. A hash only says "maybe equal", so a line found
 * here is still compared. When the wanted keys are known (a patch's lines), only their hashes
 * go into the table, and a line whose hash is not there is left out: a table of a few thousand
 * slots stays in the processor's cache, where one of a million lines is a cache miss per line.
 */
class KeyIndex {
  /** Open addressing, at most half full: a slot holds a hash, or is free. */
  private readonly hashes: Int32Array;
  private readonly taken: Uint8Array;
  /** Per slot: the first line of the hash's chain (or -1), and how many lines it has. */
  private readonly firsts: Int32Array;
  private readonly counts: Int32Array;
  /** The next line of the same chain, or -1. */
  readonly next: Int32Array;
  /** Each wanted key's slot, when the keys were known in advance. */
  private readonly slotOfKey?: Map<string, number>;

  constructor(
    private readonly file: LineIndex,
    readonly level: MatchLevel,
    wanted?: readonly string[],
  ) {
    const { text, starts, ends, length } = file;
    // Every line hashed first. An exact key is the line itself, hashed where it is in the text,
    // without cutting it out.
    const lineHashes = new Int32Array(length);
    if (level === "exact") hashLines(text, starts, ends, lineHashes);
    else {
      // A looser key is made from its line; the keys are hashed like lines, a batch at a time.
      for (let from = 0; from < length; from += KEY_BATCH) {
        const count = Math.min(KEY_BATCH, length - from);
        const keys = Array.from({ length: count }, (_, i) => this.key(from + i));
        lineHashes.set(hashKeys(keys), from);
      }
    }
    const size = 4 << Math.log2((wanted?.length ?? length) + 1);
    const hashes = (this.hashes = new Int32Array(size));
    const taken = (this.taken = new Uint8Array(size));
    const firsts = (this.firsts = new Int32Array(size).fill(-1));
    const counts = (this.counts = new Int32Array(size));
    const next = (this.next = new Int32Array(length));
    const lasts = new Int32Array(size);
    const mask = size - 1;
    if (wanted) {
      this.slotOfKey = new Map();
      const wantedHashes = hashKeys(wanted);
      wanted.forEach((key, i) => {
        const hash = wantedHashes[i];
        let slot = hash & mask;
        while (taken[slot] === 1 && hashes[slot] !== hash) slot = (slot + 1) & mask;
        taken[slot] = 1;
        hashes[slot] = hash;
        this.slotOfKey!.set(key, slot);
      });
    }
    // Then each line joins the end of its hash's chain. The probe is written out here, not
    // called: this loop runs once per line of the file.
    for (let line = 0; line < length; line++) {
      const hash = lineHashes[line];
      let slot = hash & mask;
      while (taken[slot] === 1 && hashes[slot] !== hash) slot = (slot + 1) & mask;
      if (taken[slot] === 0) {
        if (wanted) continue; // not a line anyone looks up
        taken[slot] = 1;
        hashes[slot] = hash;
      }
      if (firsts[slot] === -1) firsts[slot] = line;
      else next[lasts[slot]] = line;
      lasts[slot] = line;
      next[line] = -1;
      counts[slot]++;
    }
  }

  /** The slot of `hash`, or the free one where it would go. */
  private slotOf(hash: number): number {
    const mask = this.taken.length - 1;
    let slot = hash & mask;
    while (this.taken[slot] === 1 && this.hashes[slot] !== hash) slot = (slot + 1) & mask;
    return slot;
  }

  /** Every line is indexed, or every key was wanted. */
  covers(keys: readonly string[]): boolean {
    return this.slotOfKey === undefined || keys.every((key) => this.slotOfKey!.has(key));
  }

  /** The first line whose key may equal `key` (or -1), and how many lines share its hash. */
  chain(key: string): { first: number; count: number } {
    const slot = this.slotOfKey?.get(key) ?? this.slotOf(hashText(key));
    if (this.taken[slot] === 0) return { first: -1, count: 0 };
    return { first: this.firsts[slot], count: this.counts[slot] };
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
    const wanted = pattern.map((line) => lineKey(line, level));
    const keys = index.keys(level, options.stats, wanted);
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
    const { first, count } = keys.chain(key);
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
