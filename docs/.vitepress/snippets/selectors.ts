// The selector language of `::: change src/file.ts#selectors`: what part of a file's change a
// snippet shows. The author picks by name or by line; where the piece goes is worked out by
// placement.ts, so a caption never repeats the line numbers.
//
//   (none)          every change in the file (a new file whole, a deleted one)
//   #name           a top-level declaration; #Class-member one member of a class
//   #L12-40         lines 12 to 40 of the new file
//   #a,b,L3-9       several of these, as one snippet
// A declaration that only the previous chapter has (the lesson deletes it) selects its removal.
import { namedRange } from "../code-import.ts";
import type { DiffLine, FileChange } from "./diff.ts";

function inNew(line: DiffLine, first: number, last: number): boolean {
  return line.newLine !== undefined && line.newLine >= first && line.newLine <= last;
}

/** The new-file line a removed line sits before (the next line that the new file has). */
function anchors(lines: DiffLine[]): number[] {
  const result: number[] = new Array<number>(lines.length);
  let next = Number.MAX_SAFE_INTEGER;
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!;
    if (line.newLine !== undefined) next = line.newLine;
    result[i] = line.newLine ?? next;
  }
  return result;
}

/**
 * The diff lines of new-file lines [first, last] (1-based), with the removals among them: a run of
 * removed lines belongs to the range when the line after it does, or when the range's first line
 * replaces it; removals after the file's last line belong to a range that reaches the end.
 */
function newRange(change: FileChange, first: number, last: number): DiffLine[] {
  const anchor = anchors(change.lines);
  const endOfFile = change.newLines.length;
  return change.lines.filter((line, i) => {
    if (line.kind !== "-") return inNew(line, first, last);
    const at = anchor[i]!;
    if (at > endOfFile) return last === endOfFile;
    if (at > first && at <= last) return true;
    const next = change.lines.slice(i).find((l) => l.kind !== "-");
    return at === first && next?.kind === "+";
  });
}

/** The diff lines of old-file lines [first, last]: a declaration the lesson deletes. */
function oldRange(change: FileChange, first: number, last: number): DiffLine[] {
  return change.lines.filter(
    (line) => line.oldLine !== undefined && line.oldLine >= first && line.oldLine <= last,
  );
}

/** One selector's lines; throws with a fix when it names nothing. */
function selectOne(change: FileChange, selector: string): DiffLine[] {
  const lineRange = /^L(\d+)-(\d+)$/.exec(selector);
  if (lineRange) {
    const [first, last] = [Number(lineRange[1]), Number(lineRange[2])];
    if (first < 1 || last < first || last > change.newLines.length) {
      throw new Error(
        `${change.path}#${selector}: the file has ${change.newLines.length} lines; use #L<first>-<last> within them.`,
      );
    }
    return newRange(change, first, last);
  }
  const inNewFile = namedRange(change.newLines, selector);
  if (inNewFile) return newRange(change, inNewFile[0] + 1, inNewFile[1] + 1);
  const inOldFile = namedRange(change.oldLines, selector);
  if (inOldFile) return oldRange(change, inOldFile[0] + 1, inOldFile[1] + 1);
  throw new Error(
    `${change.path}#${selector}: no declaration, Class-member or line range by that name in either chapter's version of the file. ` +
      `Fix the selector on the page.`,
  );
}

/** The diff lines "path#a,b" picks, in file order: all of the change without selectors. */
export function select(change: FileChange, selectors: string[]): DiffLine[] {
  if (selectors.length === 0) return change.lines;
  const chosen = new Set(selectors.flatMap((selector) => selectOne(change, selector)));
  return change.lines.filter((line) => chosen.has(line));
}
