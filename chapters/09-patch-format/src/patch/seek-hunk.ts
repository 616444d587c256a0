/** Line indexes [start, end) that a match must lie in entirely. */
export interface SearchWindow {
  start: number;
  end: number;
}

export interface SeekResult {
  /** Every 0-based line where the pattern starts: more than one means the hunk is ambiguous. */
  starts: number[];
}

/**
 * Finds every place where `pattern` matches the file's lines exactly inside the window.
 * All places are returned, not just the first: applying a hunk at the first of several
 * matches is how patches land in the wrong function.
 */
export function seekLines(
  lines: readonly string[],
  pattern: readonly string[],
  window: SearchWindow,
): SeekResult | undefined {
  const lastStart = window.end - pattern.length;
  if (pattern.length === 0 || lastStart < window.start) return undefined;
  const starts: number[] = [];
  for (let start = window.start; start <= lastStart; start++) {
    if (matchesAt(lines, pattern, start)) starts.push(start);
  }
  return starts.length > 0 ? { starts } : undefined;
}

function matchesAt(keys: readonly string[], wanted: readonly string[], start: number): boolean {
  for (let offset = 0; offset < wanted.length; offset++) {
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
