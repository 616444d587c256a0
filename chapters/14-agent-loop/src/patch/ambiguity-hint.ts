import { enclosingLine } from "./enclosing-block.ts";

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
