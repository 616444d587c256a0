import { PatchError } from "./patch-errors.ts";
import type { Hunk, HunkApplication } from "./patch-types.ts";
import { listLineNumbers, seekLines, type SearchWindow } from "./seek-hunk.ts";

/** A file's text as lines without their "\n"; a final newline does not start another line. */
export function splitFileLines(fileText: string): string[] {
  const lines = fileText.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

/**
 * Joins lines back into text. Every line ends with a line break, the last one included:
 * Codex's apply_patch always leaves a final newline, and so do we.
 */
export function joinFileLines(lines: readonly string[]): string {
  return lines.map((line) => `${line}\n`).join("");
}

/** Where one hunk goes: `oldCount` file lines from `start` become the hunk's new lines. */
interface Replacement {
  start: number;
  oldCount: number;
  newLines: string[];
}

/**
 * Applies an Update's hunks to a file's full text and returns the new text.
 *
 * Hunks are located without line numbers, each after the previous one, and all of them are
 * located before anything changes: a file is patched completely or not at all. Lines outside
 * the hunks keep their exact bytes.
 */
export function applyHunks(
  fileText: string,
  hunks: readonly Hunk[],
  path: string,
): HunkApplication {
  const lines = splitFileLines(fileText);
  const replacements: Replacement[] = [];
  let cursor = 0;
  hunks.forEach((hunk, i) => {
    const located = locateHunk(lines, hunk, cursor, { path, number: i + 1 });
    replacements.push(located.replacement);
    cursor = located.replacement.start + located.replacement.oldCount;
  });
  return { text: joinFileLines(replaceLines(lines, replacements)) };
}

interface HunkContext {
  path: string;
  /** 1-based, as the messages say it. */
  number: number;
}

interface LocatedHunk {
  replacement: Replacement;
}

function locateHunk(
  lines: readonly string[],
  hunk: Hunk,
  cursor: number,
  context: HunkContext,
): LocatedHunk {
  const total = lines.length;
  const anchored = narrowByAnchors(lines, hunk.anchors, { start: cursor, end: total });
  const { window } = anchored;
  const { oldLines, newLines } = hunk;

  if (oldLines.length === 0) {
    // A hunk of only "+" lines has nothing to match: it goes right after its anchor line or,
    // without one that narrowed the search, to the end of the file, as Codex does.
    const start = anchored.narrowed ? window.start : total;
    return { replacement: { start, oldCount: 0, newLines: [...newLines] } };
  }

  const result = seekLines(lines, oldLines, window);
  if (result === undefined) throw contextNotFound(hunk, context, window);
  if (result.starts.length > 1) throw ambiguous(hunk, context, result.starts);

  const start = result.starts[0] ?? 0;
  return { replacement: { start, oldCount: oldLines.length, newLines } };
}

interface AnchoredWindow {
  window: SearchWindow;
  /** Some anchor narrowed the search: a hunk of only added lines goes right after it. */
  narrowed: boolean;
}

/**
 * Each `@@ anchor` narrows the search to after its line. An anchor that is missing or
 * matches several lines cannot narrow anything, so it is ignored.
 */
function narrowByAnchors(
  lines: readonly string[],
  anchors: readonly string[],
  initial: SearchWindow,
): AnchoredWindow {
  const result: AnchoredWindow = { window: initial, narrowed: false };
  for (const anchor of anchors) {
    const found = seekLines(lines, [anchor], result.window);
    if (found === undefined || found.starts.length > 1) continue;
    const line = found.starts[0] ?? 0;
    result.window = { start: line + 1, end: result.window.end };
    result.narrowed = true;
  }
  return result;
}

function contextNotFound(hunk: Hunk, context: HunkContext, window: SearchWindow): PatchError {
  const where = window.start > 0 ? ` after line ${window.start}` : "";
  const message =
    `Hunk ${context.number} of ${context.path} does not match the file: ` +
    `its context and removed lines were not found${where}.`;
  const hint =
    "Read the file again and copy the unchanged (' ') and removed ('-') lines exactly as " +
    "they are now; hunks for one file must appear in file order.";
  return new PatchError("context_not_found", `${message}\n${hunk.oldLines.join("\n")}`, hint);
}

function ambiguous(hunk: Hunk, context: HunkContext, starts: readonly number[]): PatchError {
  const message =
    `Hunk ${context.number} of ${context.path} matches ${starts.length} places ` +
    `(lines ${listLineNumbers(starts)}); it was not applied, to avoid changing the wrong one.`;
  return new PatchError(
    "ambiguous_context",
    message,
    "Add unchanged lines above or below the change that occur only at the intended place, " +
      "or an '@@' anchor line that is unique in the file.",
  );
}

/** Builds the new line list: the lines outside the hunks stay as they are. */
function replaceLines(lines: readonly string[], replacements: readonly Replacement[]): string[] {
  // Pieces joined by flat(): `push(...piece)` passes each line as an argument, and 125,000 overflow the stack.
  const pieces: string[][] = [];
  let next = 0;
  for (const replacement of replacements) {
    pieces.push(lines.slice(next, replacement.start), replacement.newLines);
    next = replacement.start + replacement.oldCount;
  }
  pieces.push(lines.slice(next));
  return pieces.flat();
}
