import { diffArrays } from "diff";
import { joinStretches, type Stretch } from "./file-contents.ts";
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

/**
 * A file's lines (see LineIndex: offsets into its text, without the line breaks), and what
 * is needed to put it back together byte for byte. The patch compares lines without their
 * line breaks, but the file keeps the breaks it had: a CRLF file stays CRLF, a BOM stays,
 * and lines the patch did not change are copied from the text as they were.
 */
export interface FileLines {
  bom: string;
  /** The line break new lines get: the one most of the file's lines use. */
  eol: "\n" | "\r\n";
  lines: LineIndex;
}

const BOM = "\uFEFF";

/** `wanted`: the lines that will be looked up, when known (LineIndex). */
export function splitFileLines(fileText: string, wanted?: readonly string[]): FileLines {
  const bom = fileText.startsWith(BOM) ? BOM : "";
  // Two typed arrays sized by a first pass over the text: a growing array of a million
  // numbers costs several times the memory, and the index below is built from these.
  const count = countLines(fileText, bom.length);
  const starts = new Int32Array(count);
  const ends = new Int32Array(count);
  let crlfCount = 0;
  let lfCount = 0;
  let start = bom.length;
  for (let line = 0; line < count; line++) {
    const newline = fileText.indexOf("\n", start);
    const end = newline === -1 ? fileText.length : newline;
    const crlf = newline > start && fileText.charCodeAt(newline - 1) === 13; // "\r"
    if (crlf) crlfCount++;
    else if (newline !== -1) lfCount++;
    starts[line] = start;
    ends[line] = crlf ? end - 1 : end;
    start = end + 1;
  }
  const lines = new LineIndex(fileText, starts, ends, wanted);
  return { bom, eol: crlfCount > lfCount ? "\r\n" : "\n", lines };
}

/** How many lines the text has from `from` on; a last line without a line break counts. */
function countLines(text: string, from: number): number {
  let count = 0;
  let start = from;
  for (
    let newline = text.indexOf("\n", start);
    newline !== -1;
    newline = text.indexOf("\n", start)
  ) {
    count++;
    start = newline + 1;
  }
  return start < text.length ? count + 1 : count;
}

/**
 * The file's lines from `from` to `to` (exclusive), as one stretch of its text with their own
 * line breaks. Every line ends with a line break, the last one included: Codex's apply_patch
 * always leaves a final newline, and so do we.
 */
function copyLines(file: FileLines, from: number, to: number, out: Stretch[]): void {
  if (from >= to) return;
  const { text, starts, ends } = file.lines;
  const next = to < starts.length ? starts[to] : text.length;
  out.push({ from: starts[from], to: next });
  if (next === ends[to - 1]) out.push(file.eol);
}

/**
 * Applies a tolerated "Update File" whose body had no hunk lines: the body is the new file.
 * The file still keeps its BOM and line-ending style, as with any other update.
 */
export function replaceWholeFile(fileText: string, wholeFile: string): HunkApplication {
  const file = splitFileLines(fileText);
  const body = splitFileLines(wholeFile).lines;
  const lines = Array.from({ length: body.length }, (_, i) => body.line(i) + file.eol);
  return {
    text: file.bom + lines.join(""),
    matched: [],
    notes: ["the update had no hunk lines, so its body replaced the whole file"],
  };
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
 * located before anything changes: a file is patched completely or not at all. Unchanged
 * lines keep their exact bytes and the file keeps its BOM and line endings.
 */
export function applyHunks(
  fileText: string,
  hunks: readonly Hunk[],
  path: string,
  stats?: SeekOptions["stats"],
): HunkApplication {
  const { stretches, matched, notes } = applyHunksInStretches(fileText, hunks, path, stats);
  return { text: joinStretches(fileText, stretches), matched, notes };
}

/** applyHunks, with the new text left as stretches of the old one (file-contents.ts). */
export function applyHunksInStretches(
  fileText: string,
  hunks: readonly Hunk[],
  path: string,
  stats?: SeekOptions["stats"],
): Omit<HunkApplication, "text"> & { stretches: Stretch[] } {
  // Every line a hunk looks up is known now: the index holds only those (seek-hunk.ts).
  const wanted = hunks.flatMap((hunk) => [...hunk.anchors, ...hunk.oldLines]);
  const file = splitFileLines(fileText, wanted);
  const index = file.lines;
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
  return { stretches: [file.bom, ...replaceLines(file, replacements)], matched, notes };
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
  const total = index.length;
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
    const end = Math.min(result.window.end, blockEnd(index, line));
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
  return new PatchError("ambiguous_context", message, ambiguityHint(index, starts));
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

/** Builds the new text: unchanged lines and matched context keep the file's bytes. */
function replaceLines(file: FileLines, replacements: readonly Replacement[]): Stretch[] {
  const parts: Stretch[] = [];
  let next = 0;
  for (const replacement of replacements) {
    copyLines(file, next, replacement.start, parts);
    let oldIndex = replacement.start;
    // Lines present in both old and new are context: keep the file's version of them,
    // which may differ from the patch's in whitespace or punctuation.
    for (const change of diffArrays(replacement.oldLines, replacement.newLines)) {
      if (change.removed) {
        oldIndex += change.count;
      } else if (change.added) {
        parts.push(change.value.map((line) => line + file.eol).join(""));
      } else {
        copyLines(file, oldIndex, oldIndex + change.count, parts);
        oldIndex += change.count;
      }
    }
    next = replacement.start + replacement.oldCount;
  }
  copyLines(file, next, file.lines.length, parts);
  return parts;
}
