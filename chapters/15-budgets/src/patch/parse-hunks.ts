import { END_OF_FILE, isMarker } from "./patch-markers.ts";
import { PatchError } from "./patch-error.ts";
import type { Hunk } from "./patch-types.ts";

/** A line of an Update section, with its 1-based line number in the patch as sent. */
export interface NumberedLine {
  text: string;
  number: number;
}

export interface ParsedHunks {
  hunks: Hunk[];
  repairs: string[];
}

// A unified diff's "@@ -12,7 +12,8 @@ function f() {": the numbers are dropped (hunks are
// found by their lines), and the text after them is a usable anchor.
const UNIFIED_RANGE = /^-\d+(?:,\d+)? \+\d+(?:,\d+)? @@\s*(.*)$/;

const LINE_HINT =
  "Start every hunk line with ' ' (unchanged), '-' (removed) or '+' (added), and every " +
  "hunk with '@@'; an unchanged empty line is a single space.";

interface HunkBuilder {
  anchors: string[];
  oldLines: string[];
  newLines: string[];
  endOfFile: boolean;
  text: string[];
  /** Lines with a ' ', '-' or '+' prefix (or empty) seen so far. */
  changeLines: number;
}

function newBuilder(): HunkBuilder {
  return { anchors: [], oldLines: [], newLines: [], endOfFile: false, text: [], changeLines: 0 };
}

function toHunk(builder: HunkBuilder): Hunk {
  return {
    anchors: builder.anchors,
    oldLines: builder.oldLines,
    newLines: builder.newLines,
    endOfFile: builder.endOfFile,
    patchText: builder.text.map((line) => `${line}\n`).join(""),
  };
}

/**
 * Parses the body of an Update section into hunks. As in Codex, the first hunk may omit
 * its "@@" line and an empty line counts as an empty unchanged line. Unlike Codex, several
 * "@@ anchor" lines in a row are accepted: they narrow the search step by step.
 */
export function parseHunks(lines: readonly NumberedLine[], path: string): ParsedHunks {
  const hunks: Hunk[] = [];
  const repairs: string[] = [];
  let current = newBuilder();
  // After "*** End of File" the next hunk must open with "@@": nothing can follow the end.
  let afterEndOfFile = false;
  const finish = () => {
    if (current.changeLines > 0) hunks.push(toHunk(current));
    current = newBuilder();
  };
  for (const { text, number } of lines) {
    const trimmed = text.trim();
    if (trimmed.startsWith("@@")) {
      if (current.changeLines > 0) finish();
      afterEndOfFile = false;
      const anchor = readAnchor(trimmed, number, repairs);
      if (anchor !== "") current.anchors.push(anchor);
      current.text.push(text);
      continue;
    }
    if (isMarker(text, END_OF_FILE)) {
      if (current.changeLines === 0) {
        throw new PatchError(
          "invalid_patch",
          `Line ${number}: '${END_OF_FILE}' in the update of '${path}' does not follow any hunk lines.`,
          `Put '${END_OF_FILE}' right after the last line of the hunk that ends the file, or remove it.`,
        );
      }
      current.endOfFile = true;
      current.text.push(text);
      finish();
      afterEndOfFile = true;
      continue;
    }
    const prefix = text[0] ?? "";
    if (text !== "" && prefix !== " " && prefix !== "-" && prefix !== "+") {
      throw new PatchError(
        "invalid_patch",
        `Line ${number}: unexpected line '${text}' in the update of '${path}'.`,
        LINE_HINT,
      );
    }
    if (afterEndOfFile) {
      throw new PatchError(
        "invalid_patch",
        `Line ${number}: a hunk line follows '${END_OF_FILE}' in the update of '${path}'.`,
        `Start a new hunk with an '@@' line after '${END_OF_FILE}', or move the line above it.`,
      );
    }
    const body = text.slice(1);
    if (prefix !== "+") current.oldLines.push(body);
    if (prefix !== "-") current.newLines.push(body);
    current.changeLines++;
    current.text.push(text);
  }
  if (current.changeLines === 0 && current.anchors.length > 0) {
    const last = lines.at(-1)?.number ?? 0;
    throw new PatchError(
      "invalid_patch",
      `Line ${last}: the last hunk in the update of '${path}' has an '@@' line but no hunk lines.`,
      `Add the hunk's lines after its '@@' line: ' ' unchanged, '-' removed, '+' added.`,
    );
  }
  finish();
  return { hunks, repairs };
}

function readAnchor(trimmed: string, number: number, repairs: string[]): string {
  const anchor = trimmed.slice(2).trim();
  const unified = UNIFIED_RANGE.exec(anchor);
  if (!unified) return anchor;
  repairs.push(
    `Line ${number}: the line numbers in '${trimmed}' were ignored; hunks are found by their lines.`,
  );
  return (unified[1] ?? "").trim();
}
