import { diffArrays } from "diff";
import { PatchError } from "./patch-errors.ts";
import type { Hunk, HunkApplication, MatchLevel } from "./patch-types.ts";
import {
  ambiguityHint,
  blockEnd,
  LineIndex,
  listLineNumbers,
  seekLines,
  type SearchWindow,
  type SeekOptions,
  type SeekResult,
} from "./seek-hunk.ts";

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
  oldLines: string[];
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
  stats?: SeekOptions["stats"],
): HunkApplication {
  const lines = splitFileLines(fileText);
  const index = new LineIndex(lines);
  const replacements: Replacement[] = [];
  const matched: MatchLevel[] = [];
  const notes: string[] = [];
  let cursor = 0;
  hunks.forEach((hunk, i) => {
    const located = locateHunk(index, hunk, cursor, { path, number: i + 1, stats });
    replacements.push(located.replacement);
    matched.push(located.level);
    notes.push(...located.notes);
    cursor = located.replacement.start + located.replacement.oldCount;
  });
  return { text: joinFileLines(replaceLines(lines, replacements)), matched, notes };
}

interface HunkContext {
  path: string;
  /** 1-based, as the messages say it. */
  number: number;
  stats: SeekOptions["stats"];
}

interface LocatedHunk {
  replacement: Replacement;
  level: MatchLevel;
  notes: string[];
}

function locateHunk(
  index: LineIndex,
  hunk: Hunk,
  cursor: number,
  context: HunkContext,
): LocatedHunk {
  const total = index.lines.length;
  const anchored = narrowByAnchors(index, hunk.anchors, { start: cursor, end: total }, context);
  const { window, notes } = anchored;
  const { oldLines, newLines } = hunk;

  if (oldLines.length === 0) {
    // A hunk of only "+" lines has nothing to match: without an anchor it appends to the
    // end of the file, as Codex does; with one it goes right after the anchor line.
    if (anchored.problem && !hunk.endOfFile) {
      throw anchorPlacementError(context, notes, anchored.problem);
    }
    const start = hunk.endOfFile || anchored.level === undefined ? total : window.start;
    return {
      replacement: { start, oldCount: 0, oldLines: [], newLines: [...newLines] },
      level: anchored.level ?? "exact",
      notes,
    };
  }

  const windows = searchWindows(window, total, hunk.endOfFile, anchored.level !== undefined);
  const found = seekInWindows(index, oldLines, windows, hunk.endOfFile, context.stats);
  // Codex retries without a trailing empty line: a blank line at the end of a hunk is
  // usually a separator the model added, not an empty line in the file.
  const trimmed =
    found === undefined && oldLines.at(-1) === ""
      ? seekInWindows(index, oldLines.slice(0, -1), windows, hunk.endOfFile, context.stats)
      : undefined;
  const result = found ?? trimmed;
  if (result === undefined) throw contextNotFound(hunk, context, window, notes);
  if (result.starts.length > 1) throw ambiguous(index, hunk, context, result.starts, notes);

  const usedOld = found ? oldLines : oldLines.slice(0, -1);
  const usedNew = !found && newLines.at(-1) === "" ? newLines.slice(0, -1) : newLines;
  const start = result.starts[0] ?? 0;
  return {
    replacement: { start, oldCount: usedOld.length, oldLines: usedOld, newLines: usedNew },
    level: result.level,
    notes,
  };
}

/**
 * The windows a hunk is looked for in, narrowest first: the anchor's block; the rest of the
 * file after the anchor (models use anchors loosely); and from the anchor line itself
 * (models often repeat the anchor as the hunk's first context line).
 */
function searchWindows(
  window: SearchWindow,
  total: number,
  atEnd: boolean,
  anchored: boolean,
): SearchWindow[] {
  const end = atEnd ? total : window.end;
  const windows = [{ start: window.start, end }];
  if (end < total) windows.push({ start: window.start, end: total });
  if (anchored) windows.push({ start: window.start - 1, end: total });
  return windows;
}

function seekInWindows(
  index: LineIndex,
  pattern: readonly string[],
  windows: readonly SearchWindow[],
  atEnd: boolean,
  stats: SeekOptions["stats"],
): SeekResult | undefined {
  for (const window of windows) {
    const found = seekLines(index, pattern, window, { atEnd, stats });
    if (found) return found;
  }
  return undefined;
}

interface AnchoredWindow {
  window: SearchWindow;
  /** The level the last used anchor matched at; undefined when no anchor narrowed. */
  level: MatchLevel | undefined;
  notes: string[];
  /** Why the last anchor did not narrow the search, for pure additions that need it. */
  problem?: "missing" | "ambiguous";
}

/**
 * Each `@@ anchor` narrows the search to after its line (and to its block, when the line
 * opens one). An anchor that is missing or matches several lines cannot narrow anything,
 * so it is ignored and a note says so.
 */
function narrowByAnchors(
  index: LineIndex,
  anchors: readonly string[],
  initial: SearchWindow,
  context: HunkContext,
): AnchoredWindow {
  const result: AnchoredWindow = { window: initial, level: undefined, notes: [] };
  for (const anchor of anchors) {
    const found = seekLines(index, [anchor], result.window, { stats: context.stats });
    if (found === undefined) {
      const where = result.window.start > 0 ? ` after line ${result.window.start}` : "";
      result.notes.push(`anchor '@@ ${anchor}' was not found${where} and was ignored`);
      result.problem = "missing";
      continue;
    }
    if (found.starts.length > 1) {
      const lines = listLineNumbers(found.starts);
      result.notes.push(
        `anchor '@@ ${anchor}' matched ${found.starts.length} lines (${lines}) and was ignored`,
      );
      result.problem = "ambiguous";
      continue;
    }
    const line = found.starts[0] ?? 0;
    const end = Math.min(result.window.end, blockEnd(index.lines, line));
    result.window = { start: line + 1, end };
    result.level = found.level;
    result.problem = undefined;
  }
  return result;
}

function withNotes(message: string, notes: readonly string[]): string {
  if (notes.length === 0) return message;
  return `${message} Note: ${notes.join("; ")}.`;
}

function contextNotFound(
  hunk: Hunk,
  context: HunkContext,
  window: SearchWindow,
  notes: readonly string[],
): PatchError {
  const where = hunk.endOfFile
    ? " at the end of the file"
    : window.start > 0
      ? ` after line ${window.start}`
      : "";
  const message = withNotes(
    `Hunk ${context.number} of ${context.path} does not match the file: ` +
      `its context and removed lines were not found${where}.`,
    notes,
  );
  const hint = hunk.endOfFile
    ? "Read the file again and copy its last lines exactly, or remove '*** End of File' " +
      "if the hunk is not at the end of the file."
    : "Read the file again and copy the unchanged (' ') and removed ('-') lines exactly as " +
      "they are now; hunks for one file must appear in file order.";
  return new PatchError("context_not_found", `${message}\n${hunk.oldLines.join("\n")}`, hint);
}

function ambiguous(
  index: LineIndex,
  hunk: Hunk,
  context: HunkContext,
  starts: readonly number[],
  notes: readonly string[],
): PatchError {
  const message = withNotes(
    `Hunk ${context.number} of ${context.path} matches ${starts.length} places ` +
      `(lines ${listLineNumbers(starts)}); it was not applied, to avoid changing the wrong one.`,
    notes,
  );
  return new PatchError("ambiguous_context", message, ambiguityHint(index.lines, starts));
}

function anchorPlacementError(
  context: HunkContext,
  notes: readonly string[],
  problem: "missing" | "ambiguous",
): PatchError {
  const message = `Hunk ${context.number} of ${context.path} only adds lines, and its anchor does not say where.`;
  const notUnique = problem === "ambiguous";
  return new PatchError(
    notUnique ? "ambiguous_context" : "context_not_found",
    withNotes(message, notes),
    (notUnique
      ? "Use an '@@' anchor line that occurs once in the file"
      : "Read the file again and copy the anchor line exactly") +
      ", or add unchanged context lines (' ') around the added lines.",
  );
}

/** Builds the new line list: the lines outside the hunks stay as they are. */
function replaceLines(lines: readonly string[], replacements: readonly Replacement[]): string[] {
  // Pieces joined by flat(): `push(...piece)` passes each line as an argument, and 125,000 overflow the stack.
  const pieces: string[][] = [];
  let next = 0;
  for (const replacement of replacements) {
    pieces.push(lines.slice(next, replacement.start));
    let oldIndex = replacement.start;
    // Lines present in both old and new are context: keep the file's version of them,
    // which may differ from the patch's in whitespace or punctuation.
    for (const change of diffArrays(replacement.oldLines, replacement.newLines)) {
      if (change.removed) {
        oldIndex += change.count;
      } else if (change.added) {
        pieces.push(change.value);
      } else {
        pieces.push(lines.slice(oldIndex, oldIndex + change.count));
        oldIndex += change.count;
      }
    }
    next = replacement.start + replacement.oldCount;
  }
  pieces.push(lines.slice(next));
  return pieces.flat();
}
