/**
 * A file's text as lines, split so that it can be put back together byte for byte.
 *
 * The patch compares lines without their line breaks, but writes the file back with the
 * breaks it had: a CRLF file stays CRLF, a BOM stays, and lines the patch did not change
 * keep their exact bytes.
 */
export interface FileLine {
  /** The line's text without its line break. */
  text: string;
  /** "\r\n", "\n", or "" for a last line without a line break. */
  ending: string;
}

export interface FileLines {
  bom: string;
  /** The line break new lines get: the one most of the file's lines use. */
  eol: "\n" | "\r\n";
  lines: FileLine[];
}

const BOM = "\uFEFF";

export function splitFileLines(fileText: string): FileLines {
  const bom = fileText.startsWith(BOM) ? BOM : "";
  const body = fileText.slice(bom.length);
  const lines: FileLine[] = [];
  let crlfCount = 0;
  let start = 0;
  while (start < body.length) {
    const newline = body.indexOf("\n", start);
    if (newline === -1) {
      lines.push({ text: body.slice(start), ending: "" });
      break;
    }
    const crlf = newline > start && body[newline - 1] === "\r";
    if (crlf) crlfCount++;
    lines.push({
      text: body.slice(start, crlf ? newline - 1 : newline),
      ending: crlf ? "\r\n" : "\n",
    });
    start = newline + 1;
  }
  const lfCount = lines.filter((line) => line.ending === "\n").length;
  return { bom, eol: crlfCount > lfCount ? "\r\n" : "\n", lines };
}

/**
 * Joins lines back into text. Every line ends with a line break, the last one included:
 * Codex's apply_patch always leaves a final newline, and so do we.
 */
export function joinFileLines(file: FileLines, lines: FileLine[]): string {
  return file.bom + lines.map((line) => line.text + (line.ending || file.eol)).join("");
}
