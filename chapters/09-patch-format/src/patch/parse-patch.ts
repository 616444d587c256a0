// The apply_patch format, as the parser below reads it (Codex's grammar, written out):
//
//   patch      := "*** Begin Patch" NL operation* "*** End Patch" NL?
//   operation  := add | delete | update
//   add        := "*** Add File: " path NL ("+" line NL)*
//   delete     := "*** Delete File: " path NL
//   update     := "*** Update File: " path NL hunk*
//   hunk       := ("@@" | "@@ " anchor) NL hunk_line+
//   hunk_line  := (" " | "-" | "+") line NL
//
// Hunks carry no line numbers: they are found by their text (see seek-hunk.ts). The parser
// is strict: anything else is refused with the line number and the exact fix.
import { PatchError } from "./patch-errors.ts";
import type { Hunk, ParsedPatch, PatchOperation } from "./patch-types.ts";

/** Recognising the patch's marker lines, spelled exactly as the grammar says. */
export const BEGIN_PATCH = "*** Begin Patch";
export const END_PATCH = "*** End Patch";

export type HeaderKind = "add" | "delete" | "update";

export interface Header {
  kind: HeaderKind;
  path: string;
}

const LABELS: ReadonlyArray<[HeaderKind, string]> = [
  ["add", "Add File:"],
  ["delete", "Delete File:"],
  ["update", "Update File:"],
];

export function readHeader(line: string): Header | undefined {
  if (!line.startsWith("*** ")) return undefined;
  const rest = line.slice(4);
  for (const [kind, label] of LABELS) {
    if (!rest.startsWith(label)) continue;
    const path = rest.slice(label.length).trim();
    return { kind, path };
  }
  return undefined;
}

/** A marker line such as "*** End Patch". */
export function isMarker(line: string, marker: string): boolean {
  return line === marker;
}

/** A line of an Update section, with its 1-based line number in the patch as sent. */
export interface NumberedLine {
  text: string;
  number: number;
}

export interface ParsedHunks {
  hunks: Hunk[];
}

const LINE_HINT =
  "Start every hunk line with ' ' (unchanged), '-' (removed) or '+' (added), and every " +
  "hunk with '@@'; an unchanged empty line is a single space.";

interface HunkBuilder {
  anchors: string[];
  oldLines: string[];
  newLines: string[];
  /** Lines with a ' ', '-' or '+' prefix (or empty) seen so far. */
  changeLines: number;
}

function newBuilder(): HunkBuilder {
  return { anchors: [], oldLines: [], newLines: [], changeLines: 0 };
}

function toHunk(builder: HunkBuilder): Hunk {
  return {
    anchors: builder.anchors,
    oldLines: builder.oldLines,
    newLines: builder.newLines,
  };
}

/**
 * Parses the body of an Update section into hunks. As in Codex, the first hunk may omit
 * its "@@" line and an empty line counts as an empty unchanged line. Unlike Codex, several
 * "@@ anchor" lines in a row are accepted: they narrow the search step by step.
 */
export function parseHunks(lines: readonly NumberedLine[], path: string): ParsedHunks {
  const hunks: Hunk[] = [];
  let current = newBuilder();
  const finish = () => {
    if (current.changeLines > 0) hunks.push(toHunk(current));
    current = newBuilder();
  };
  for (const { text, number } of lines) {
    if (text.startsWith("@@")) {
      if (current.changeLines > 0) finish();
      const anchor = text.slice(2).trim();
      if (anchor !== "") current.anchors.push(anchor);
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
    const body = text.slice(1);
    if (prefix !== "+") current.oldLines.push(body);
    if (prefix !== "-") current.newLines.push(body);
    current.changeLines++;
  }
  finish();
  return { hunks };
}

const FORMAT_HINT =
  `Send the patch in this form: '${BEGIN_PATCH}' alone on the first line, then sections ` +
  `such as '*** Update File: path' followed by '@@' hunks of ' ' unchanged, '-' removed and ` +
  `'+' added lines, then '${END_PATCH}' alone on the last line.`;

const VALID_HEADERS =
  "Valid hunk headers: '*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'";

/** Long lines are cut when quoted in a message: the model needs to recognise it, not reread it. */
function quote(line: string): string {
  const trimmed = line.trim();
  return trimmed.length > 80 ? `${trimmed.slice(0, 77)}...` : trimmed;
}

/**
 * Parses a patch in Codex's apply_patch format into operations. Anything that does not
 * follow the grammar throws PatchError("invalid_patch") with a message that names the line
 * and a hint that names the fix.
 */
export function parsePatch(text: string): ParsedPatch {
  // Blank lines around the patch are not part of it; messages still count them.
  const all = text.split("\n").map((line, i) => ({ text: line, number: i + 1 }));
  const first = all.findIndex((line) => line.text.trim() !== "");
  const last = all.findLastIndex((line) => line.text.trim() !== "");
  const lines: NumberedLine[] = first === -1 ? [] : all.slice(first, last + 1);
  checkBoundaries(lines);
  const operations = parseSections(lines.slice(1, -1));
  if (operations.length === 0) {
    throw new PatchError(
      "invalid_patch",
      `The patch contains no file operations between '${BEGIN_PATCH}' and '${END_PATCH}'.`,
      "Add at least one '*** Add File: path', '*** Delete File: path' or '*** Update File: path' " +
        "section, or do not call apply_patch when nothing needs to change.",
    );
  }
  return { operations };
}

function checkBoundaries(lines: readonly NumberedLine[]): void {
  const first = lines[0];
  if (first === undefined) {
    throw new PatchError("invalid_patch", "The patch is empty.", FORMAT_HINT);
  }
  if (!isMarker(first.text, BEGIN_PATCH)) throw missingBegin(first);
  const last = lines.at(-1);
  if (lines.length < 2 || last === undefined || !isMarker(last.text, END_PATCH)) {
    throw missingEnd(lines);
  }
}

function missingBegin(first: NumberedLine): PatchError {
  const message = `The patch must start with '${BEGIN_PATCH}', but its first line is '${quote(first.text)}'.`;
  return new PatchError("invalid_patch", message, FORMAT_HINT);
}

function missingEnd(lines: readonly NumberedLine[]): PatchError {
  const last = lines.at(-1) ?? { text: "", number: 1 };
  const end = lines.slice(1).find((line) => isMarker(line.text, END_PATCH));
  if (end) {
    return new PatchError(
      "invalid_patch",
      `The patch must end with '${END_PATCH}', but lines ${end.number + 1} to ${last.number} ` +
        `follow it (line ${end.number}).`,
      `Remove the lines after '${END_PATCH}', or move it to the end if those lines belong to the patch.`,
    );
  }
  return new PatchError(
    "invalid_patch",
    `The patch has no '${END_PATCH}' line; its last line (line ${last.number}) is '${quote(last.text)}'.`,
    `Add a line '${END_PATCH}' after the last line of the patch; if the patch was cut off, send it again in full.`,
  );
}

/** Splits the lines between the boundary markers into Add, Delete and Update sections. */
function parseSections(lines: readonly NumberedLine[]): PatchOperation[] {
  const operations: PatchOperation[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] as NumberedLine;
    if (line.text.trim() === "") {
      i++;
      continue;
    }
    const header = readHeader(line.text);
    if (header === undefined) throw invalidHeader(line);
    if (header.kind === "delete") {
      operations.push({ kind: "delete", path: header.path });
      i++;
      continue;
    }
    let end = i + 1;
    const isUpdate = header.kind === "update";
    while (end < lines.length && !startsSection(lines[end] as NumberedLine, isUpdate)) end++;
    const section = lines.slice(i, end);
    operations.push(isUpdate ? parseUpdate(section, header) : parseAdd(section, header));
    i = end;
  }
  return operations;
}

/**
 * Whether a line opens the next section. Inside an Update, a line starting with ' ', '-'
 * or '+' is a hunk line even when it reads like a header: files that document this very
 * format contain such lines.
 */
function startsSection(line: NumberedLine, inUpdate: boolean): boolean {
  if (inUpdate && /^[ +-]/.test(line.text)) return false;
  return readHeader(line.text) !== undefined;
}

function invalidHeader(line: NumberedLine): PatchError {
  return new PatchError(
    "invalid_patch",
    `Invalid patch hunk on line ${line.number}: '${quote(line.text)}' is not a valid hunk header. ${VALID_HEADERS}`,
    "Start each file's section with one of the valid headers, spelled exactly as shown.",
  );
}

function dropBlankEnds(lines: readonly NumberedLine[]): NumberedLine[] {
  let start = 0;
  let end = lines.length;
  while (start < end && lines[start]?.text.trim() === "") start++;
  while (end > start && lines[end - 1]?.text === "") end--;
  return lines.slice(start, end);
}

function parseAdd(section: readonly NumberedLine[], header: Header): PatchOperation {
  const body = dropBlankEnds(section.slice(1));
  const stray = body.find((line) => line.text !== "" && !line.text.startsWith("+"));
  if (stray) {
    throw new PatchError(
      "invalid_patch",
      `Line ${stray.number}: '${quote(stray.text)}' in the Add File section for '${header.path}' does not start with '+'.`,
      "Start every line of a new file with '+' (an empty line is a lone '+'), or start the next " +
        "section with '*** Add File:', '*** Delete File:' or '*** Update File:'.",
    );
  }
  const fileLines = body.map((line) => line.text.slice(1));
  const contents = fileLines.map((line) => `${line}\n`).join("");
  return { kind: "add", path: header.path, contents };
}

function parseUpdate(section: readonly NumberedLine[], header: Header): PatchOperation {
  const headerLine = section[0] as NumberedLine;
  const body = dropBlankEnds(section.slice(1));
  if (body.every((line) => line.text.startsWith("@@"))) {
    throw new PatchError(
      "invalid_patch",
      `Invalid patch hunk on line ${headerLine.number}: Update file hunk for path '${header.path}' is empty`,
      `Add the change after '${headerLine.text.trim()}': an '@@' line, then ' ' unchanged, '-' removed ` +
        "and '+' added lines. To only rename the file, use '*** Move to: {path}' with a hunk.",
    );
  }
  const parsed = parseHunks(body, header.path);
  return { kind: "update", path: header.path, hunks: parsed.hunks };
}
