import { MATCH_LEVELS, lineKey } from "./match-level.ts";
import type { MatchLevel } from "./patch-types.ts";

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
