import { joinFileLines, splitFileLines } from "./file-lines.ts";
import type { HunkApplication } from "./patch-types.ts";

/**
 * Applies a tolerated "Update File" whose body had no hunk lines: the body is the new file.
 * The file still keeps its BOM and line-ending style, as with any other update.
 */
export function replaceWholeFile(fileText: string, wholeFile: string): HunkApplication {
  const file = splitFileLines(fileText);
  const replacement = splitFileLines(wholeFile).lines.map((line) => ({
    text: line.text,
    ending: file.eol,
  }));
  return {
    text: joinFileLines(file, replacement),
    matched: [],
    notes: ["the update had no hunk lines, so its body replaced the whole file"],
  };
}
