// The apply_patch format, as the parser below reads it (Codex's grammar, written out):
//
//   patch      := "*** Begin Patch" NL operation* "*** End Patch" NL?
//   operation  := add | delete | update
//   add        := "*** Add File: " path NL ("+" line NL)*
//   delete     := "*** Delete File: " path NL
//   update     := "*** Update File: " path NL hunk*
//   hunk       := ("@@" | "@@ " anchor) NL hunk_line+ ("*** End of File" NL)?
//   hunk_line  := (" " | "-" | "+") line NL
//
// Hunks carry no line numbers: they are found by their text (see seek-hunk.ts). The parser
// also tolerates the mistakes models make most (a fence around the patch, padded markers,
// a missing "*** "), and reports each repair; anything else is refused with the line number
// and the exact fix.
import path from "node:path";
import { PatchError } from "./patch-errors.ts";
import type { Hunk, ParsedPatch, PatchOperation } from "./patch-types.ts";

/**
 * Recognising the patch's marker lines. Models pad markers with spaces and drop the
 * leading "*** " of file headers; both are accepted, with a repair sentence, because the
 * intent is unambiguous.
 */
export const BEGIN_PATCH = "*** Begin Patch";
export const END_PATCH = "*** End Patch";
export const END_OF_FILE = "*** End of File";

export type HeaderKind = "add" | "delete" | "update";

export interface Header {
  kind: HeaderKind;
  path: string;
  /** Set when the header was written in a tolerated, non-canonical form. */
  repair?: string;
}

const LABELS: ReadonlyArray<[HeaderKind, string]> = [
  ["add", "Add File:"],
  ["delete", "Delete File:"],
  ["update", "Update File:"],
];

/** The canonical spelling of a header, as it appears in messages and hints. */
export function headerText(kind: HeaderKind, path: string): string {
  const label = LABELS.find(([k]) => k === kind)?.[1] ?? "";
  return `*** ${label} ${path}`;
}

export function readHeader(line: string, lineNumber: number): Header | undefined {
  const trimmed = line.trim();
  const starred = trimmed.startsWith("*** ");
  const rest = starred ? trimmed.slice(4) : trimmed;
  for (const [kind, label] of LABELS) {
    if (!rest.startsWith(label)) continue;
    const path = rest.slice(label.length).trim();
    const canonical = headerText(kind, path);
    if (!starred) {
      const repair = `Line ${lineNumber}: '${trimmed}' lacked the leading '*** '; it was read as '${canonical}'.`;
      return { kind, path, repair };
    }
    if (line !== trimmed) {
      return { kind, path, repair: `Line ${lineNumber}: spaces around '${trimmed}' were ignored.` };
    }
    return { kind, path };
  }
  return undefined;
}

/** A marker line such as "*** End Patch", allowing spaces around it. */
export function isMarker(line: string, marker: string): boolean {
  return line.trim() === marker;
}

/**
 * The envelope a model puts around a patch: CRLF line breaks, a Markdown code fence, a
 * shell heredoc. None of it changes what the patch means, so it is taken off here, before
 * parsing, and each repair is reported so the model can learn the plain form.
 */
export interface UnwrappedPatch {
  lines: string[];
  /** 1-based line number, in the text as sent, of `lines[0]`: error messages quote it. */
  firstLineNumber: number;
  repairs: string[];
  /** The DIR of a `cd DIR && apply_patch <<'EOF'` wrapper: the patch's paths are relative to it. */
  workdir?: string;
}

const FENCE_OPEN = /^```[\w-]*$/;
const FENCE_CLOSE = /^```$/;
// `<<EOF`, `apply_patch <<'EOF'` and Codex's `cd DIR && apply_patch <<'EOF'` (DIR one word or quoted).
// Other shell text is never dropped: the wrapper stays, and the patch is refused for it.
const HEREDOC_OPEN =
  /^(?:(?:cd\s+('[^']+'|"[^"\\$`]+"|[^\s'"\\$`;&|<>()]+)\s*&&\s*)?apply_?patch\s*)?<<-?\s*(['"]?)([A-Za-z_]\w*)\2$/;

export function unwrapPatch(text: string): UnwrappedPatch {
  const repairs: string[] = [];
  if (text.includes("\r\n")) {
    repairs.push("The patch used CRLF line breaks; they were read as LF.");
    text = text.replaceAll("\r\n", "\n");
  }
  let lines = text.split("\n");
  let first = 0;
  let last = lines.length - 1;
  let workdir: string | undefined;
  const skipBlank = () => {
    while (first <= last && lines[first]?.trim() === "") first++;
    while (last >= first && lines[last]?.trim() === "") last--;
  };
  skipBlank();
  // Two rounds: a heredoc inside a code fence is common in chat answers.
  for (let round = 0; round < 2 && last > first; round++) {
    const opening = lines[first]?.trim() ?? "";
    const closing = lines[last]?.trim() ?? "";
    const heredoc = HEREDOC_OPEN.exec(opening);
    if (FENCE_OPEN.test(opening) && FENCE_CLOSE.test(closing)) {
      repairs.push(`The patch was wrapped in a '${opening}' code fence; the fence was removed.`);
    } else if (heredoc && closing === heredoc[3]) {
      repairs.push(`The patch was wrapped in a heredoc ('${opening}'); the wrapper was removed.`);
      workdir = heredoc[1]?.replace(/^(['"])(.*)\1$/, "$2");
      if (workdir) repairs.push(`Its paths were read relative to '${workdir}', as its 'cd' says.`);
    } else {
      break;
    }
    first++;
    last--;
    skipBlank();
  }
  lines = lines.slice(first, last + 1);
  return { lines, firstLineNumber: first + 1, repairs, workdir };
}

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
  /** Lines with a ' ', '-' or '+' prefix (or empty) seen so far. */
  changeLines: number;
}

function newBuilder(): HunkBuilder {
  return { anchors: [], oldLines: [], newLines: [], endOfFile: false, changeLines: 0 };
}

function toHunk(builder: HunkBuilder): Hunk {
  return {
    anchors: builder.anchors,
    oldLines: builder.oldLines,
    newLines: builder.newLines,
    endOfFile: builder.endOfFile,
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
  }
  if (current.changeLines === 0 && lines.at(-1)?.text.trim().startsWith("@@")) {
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
 * Parses a patch in Codex's apply_patch format into operations. Tolerated mistakes are
 * repaired and listed in `repairs`; anything else throws PatchError("invalid_patch") with a
 * message that names the line and a hint that names the fix.
 */
export function parsePatch(text: string): ParsedPatch {
  const unwrapped = unwrapPatch(text);
  const repairs = [...unwrapped.repairs];
  const lines: NumberedLine[] = unwrapped.lines.map((line, i) => ({
    text: line,
    number: unwrapped.firstLineNumber + i,
  }));
  checkBoundaries(lines, repairs);
  const operations = parseSections(lines.slice(1, -1), repairs);
  for (const op of operations) op.path = inWorkdir(unwrapped.workdir, op.path);
  const last = lines.at(-1);
  if (last && last.text !== END_PATCH) {
    repairs.push(`Line ${last.number}: spaces around '${END_PATCH}' were ignored.`);
  }
  if (operations.length === 0) {
    throw new PatchError(
      "invalid_patch",
      `The patch contains no file operations between '${BEGIN_PATCH}' and '${END_PATCH}'.`,
      "Add at least one '*** Add File: path', '*** Delete File: path' or '*** Update File: path' " +
        "section, or do not call apply_patch when nothing needs to change.",
    );
  }
  return { operations, repairs };
}

/** `cd DIR && apply_patch`: a relative path is read from DIR; an absolute or "~" one is left for
 *  the workspace confinement to refuse, as it refuses a DIR that leads outside. */
function inWorkdir(workdir: string | undefined, file: string): string {
  if (workdir === undefined || /^([/\\]|~([/\\]|$)|[A-Za-z]:[/\\])/.test(file)) return file;
  return path.posix.join(workdir, file);
}

function checkBoundaries(lines: readonly NumberedLine[], repairs: string[]): void {
  const first = lines[0];
  if (first === undefined) {
    throw new PatchError("invalid_patch", "The patch is empty.", FORMAT_HINT);
  }
  if (!isMarker(first.text, BEGIN_PATCH)) throw missingBegin(lines, first);
  if (first.text !== BEGIN_PATCH) {
    repairs.push(`Line ${first.number}: spaces around '${BEGIN_PATCH}' were ignored.`);
  }
  const last = lines.at(-1);
  if (lines.length < 2 || last === undefined || !isMarker(last.text, END_PATCH)) {
    throw missingEnd(lines);
  }
}

function missingBegin(lines: readonly NumberedLine[], first: NumberedLine): PatchError {
  const shown = quote(first.text);
  if (first.text.includes(BEGIN_PATCH) && first.text.includes(END_PATCH)) {
    const escaped = first.text.includes("\\n")
      ? " It contains literal '\\n' sequences instead of line breaks."
      : "";
    return new PatchError(
      "invalid_patch",
      `The whole patch is on one line (line ${first.number}): '${BEGIN_PATCH}' and '${END_PATCH}' ` +
        `must each be on a line of their own.${escaped}`,
      "Put each marker and each patch line on its own line, separated by real line breaks: " +
        `'${BEGIN_PATCH}' alone on the first line, then each header and hunk line, then ` +
        `'${END_PATCH}' alone on the last line.`,
    );
  }
  const begin = lines.find((line) => isMarker(line.text, BEGIN_PATCH));
  const message = `The patch must start with '${BEGIN_PATCH}', but its first line is '${shown}'.`;
  if (begin) {
    return new PatchError("invalid_patch", message, removeSurroundingText(lines, begin, first));
  }
  if (/^(--- |\+\+\+ |diff --git |Index: |@@ -\d)/.test(first.text)) {
    return new PatchError(
      "invalid_patch",
      `${message} This looks like a unified diff, which apply_patch does not read.`,
      FORMAT_HINT,
    );
  }
  return new PatchError("invalid_patch", message, FORMAT_HINT);
}

/**
 * The fix for a patch with text around it (prose, or a code fence after an explanation):
 * name the lines before '*** Begin Patch' and, when there are any, those after '*** End Patch',
 * so that one retry is enough.
 */
function removeSurroundingText(
  lines: readonly NumberedLine[],
  begin: NumberedLine,
  first: NumberedLine,
): string {
  const lineCount = (n: number) => `${n} line${n === 1 ? "" : "s"}`;
  const before = `the ${lineCount(begin.number - first.number)} before '${BEGIN_PATCH}' (line ${begin.number})`;
  const end = lines.findLast((line) => isMarker(line.text, END_PATCH));
  const last = lines.at(-1) ?? first;
  if (end === undefined || end.number <= begin.number || end.number === last.number) {
    return `Remove ${before}, so that the patch starts with it.`;
  }
  const after = `the ${lineCount(last.number - end.number)} after '${END_PATCH}' (line ${end.number})`;
  return `Remove ${before} and ${after}, so that the patch starts and ends with them.`;
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
function parseSections(lines: readonly NumberedLine[], repairs: string[]): PatchOperation[] {
  const operations: PatchOperation[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] as NumberedLine;
    if (line.text.trim() === "") {
      i++;
      continue;
    }
    const header = readHeader(line.text, line.number);
    if (header === undefined) throw invalidHeader(line);
    if (header.path === "") throw missingPath(line, header);
    if (header.repair) repairs.push(header.repair);
    if (header.kind === "delete") {
      operations.push({ kind: "delete", path: header.path });
      i++;
      continue;
    }
    let end = i + 1;
    const isUpdate = header.kind === "update";
    while (end < lines.length && !startsSection(lines[end] as NumberedLine, isUpdate)) end++;
    const section = lines.slice(i, end);
    operations.push(
      isUpdate ? parseUpdate(section, header, repairs) : parseAdd(section, header, repairs),
    );
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
  return readHeader(line.text, line.number) !== undefined;
}

function invalidHeader(line: NumberedLine): PatchError {
  const hunkLine = /^([ +-]|@@)/.test(line.text) || line.text.trim() === "*** End of File";
  return new PatchError(
    "invalid_patch",
    `Invalid patch hunk on line ${line.number}: '${quote(line.text)}' is not a valid hunk header. ${VALID_HEADERS}`,
    hunkLine
      ? `Hunk lines belong to an update: put '*** Update File: {path}' before line ${line.number}, ` +
          "or start new files with '*** Add File: {path}' and prefix each of their lines with '+'."
      : "Start each file's section with one of the valid headers, spelled exactly as shown.",
  );
}

function missingPath(line: NumberedLine, header: Header): PatchError {
  return new PatchError(
    "invalid_patch",
    `Line ${line.number}: '${quote(line.text)}' names no file.`,
    `Write the file's workspace-relative path after the colon, e.g. '${headerText(header.kind, "src/app.ts")}'.`,
  );
}

function dropBlankEnds(lines: readonly NumberedLine[]): NumberedLine[] {
  let start = 0;
  let end = lines.length;
  while (start < end && lines[start]?.text.trim() === "") start++;
  while (end > start && lines[end - 1]?.text === "") end--;
  return lines.slice(start, end);
}

function parseAdd(
  section: readonly NumberedLine[],
  header: Header,
  repairs: string[],
): PatchOperation {
  const body = dropBlankEnds(section.slice(1));
  const prefixed = body.filter((line) => line.text.startsWith("+"));
  let fileLines: string[];
  if (prefixed.length === 0 && body.length > 0) {
    repairs.push(
      `The Add File section for '${header.path}' had no '+' prefixes; its lines were taken as the file's contents.`,
    );
    fileLines = body.map((line) => line.text);
  } else {
    const stray = body.find((line) => line.text !== "" && !line.text.startsWith("+"));
    if (stray) {
      throw new PatchError(
        "invalid_patch",
        `Line ${stray.number}: '${quote(stray.text)}' in the Add File section for '${header.path}' does not start with '+'.`,
        "Start every line of a new file with '+' (an empty line is a lone '+'), or start the next " +
          "section with '*** Add File:', '*** Delete File:' or '*** Update File:'.",
      );
    }
    fileLines = body.map((line) => line.text.slice(1));
  }
  const contents = fileLines.map((line) => `${line}\n`).join("");
  return { kind: "add", path: header.path, contents };
}

function isHunkLine(text: string): boolean {
  return /^[ +-]/.test(text) || text.trim().startsWith("@@") || isMarker(text, END_OF_FILE);
}

function parseUpdate(
  section: readonly NumberedLine[],
  header: Header,
  repairs: string[],
): PatchOperation {
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
  const base = { kind: "update" as const, path: header.path };
  if (!body.some((line) => isHunkLine(line.text))) {
    repairs.push(
      `The Update File section for '${header.path}' had no hunk lines (' ', '-', '+' or '@@'); ` +
        "its body was taken as the whole new file.",
    );
    const wholeFile = body.map((line) => `${line.text}\n`).join("");
    return { ...base, hunks: [], wholeFile };
  }
  const parsed = parseHunks(body, header.path);
  repairs.push(...parsed.repairs);
  return { ...base, hunks: parsed.hunks };
}
