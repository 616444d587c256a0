// How a reader puts a placed snippet into their code: the rules written on the site's "How to
// read this book" page (docs/reference/how-to-read.md), as code. The page renderer places every
// hunk by these rules before it shows it (placement.ts), and test/site/rebuild-from-pages.test.ts
// rebuilds every chapter by them from its page alone.
//
// 1. A snippet is in one file. "new file" starts it empty; "deleted file" removes it; a file a
//    snippet leaves empty is removed too.
// 2. A snippet is one or more hunks, separated by "⋯ N unchanged lines". Apply them in order.
// 3. A hunk's unmarked and `-` lines are lines the file has now, in that order. Find the first place
//    where they all appear, one after another, exactly, and where the first marked line sits at or
//    after the start of the declaration the caption names (from the top of the file when the
//    caption says "at the top"). A declaration starts at the comment right above it.
// 4. There, drop the `-` lines and put in the `+` lines; the unmarked lines stay.
// 5. Every file ends with a newline.
import { landmarkStart } from "./declarations.ts";

export interface Row {
  kind: " " | "+" | "-";
  text: string;
}

export interface Hunk {
  /** The declaration the caption names ("main", "RunLedger.torn"); undefined: "at the top". */
  anchor?: string;
  rows: Row[];
}

export interface PlacedSnippet {
  path: string;
  /** "new": the file does not exist yet; "deleted": the snippet removes the whole file. */
  file: "new" | "changed" | "deleted";
  caption: string;
  hunks: Hunk[];
}

/** The lines a hunk expects in the file, and how many come before its first marked line. */
function expected(hunk: Hunk): { lines: string[]; beforeChange: number } {
  const lines = hunk.rows.filter((row) => row.kind !== "+").map((row) => row.text);
  const firstChange = hunk.rows.findIndex((row) => row.kind !== " ");
  const beforeChange = hunk.rows.slice(0, firstChange).filter((row) => row.kind !== "+").length;
  return { lines, beforeChange };
}

export function hasChanges(hunk: Hunk): boolean {
  return hunk.rows.some((row) => row.kind !== " ");
}

/** Where rule 3 puts `hunk` in `lines` (0-based, the first expected line), or why it cannot. */
export function locate(lines: readonly string[], hunk: Hunk): number | string {
  const from = hunk.anchor === undefined ? 0 : landmarkStart(lines, hunk.anchor);
  if (from === -1) return `the file has no declaration \`${hunk.anchor}\` to place it in or after`;
  const want = expected(hunk);
  if (want.lines.length === 0) {
    return lines.length === 0
      ? 0
      : "it has no unchanged lines to place it by, and the file is not empty";
  }
  for (let at = 0; at + want.lines.length <= lines.length; at++) {
    if (at + want.beforeChange < from) continue;
    if (want.lines.every((line, i) => lines[at + i] === line)) return at;
  }
  const where = hunk.anchor === undefined ? "anywhere" : `at or after \`${hunk.anchor}\``;
  return `its unchanged and removed lines do not appear ${where}; first of them: ${JSON.stringify(want.lines[0])}`;
}

/** `lines` with `hunk` applied at `at` (rule 4). */
export function applyAt(lines: readonly string[], hunk: Hunk, at: number): string[] {
  const want = expected(hunk);
  const put = hunk.rows.filter((row) => row.kind !== "-").map((row) => row.text);
  return [...lines.slice(0, at), ...put, ...lines.slice(at + want.lines.length)];
}

/**
 * Applies one snippet to `files` (path -> text) by the rules above; returns why it could not be
 * placed, or undefined when it was.
 */
export function applySnippet(
  files: Map<string, string>,
  snippet: PlacedSnippet,
): string | undefined {
  if (snippet.file === "deleted") {
    if (!files.delete(snippet.path)) return `${snippet.path} is not there to delete`;
    return undefined;
  }
  const text = files.get(snippet.path);
  if (text === undefined && snippet.file !== "new") return `${snippet.path} does not exist yet`;
  if (text !== undefined && snippet.file === "new") return `${snippet.path} exists already`;
  let lines = text === undefined ? [] : text.slice(0, -1).split("\n");
  if (text === "") lines = [];
  for (const [i, hunk] of snippet.hunks.entries()) {
    if (!hasChanges(hunk)) continue;
    const at = locate(lines, hunk);
    if (typeof at === "string") return `hunk ${i + 1} of ${snippet.hunks.length}: ${at}`;
    lines = applyAt(lines, hunk, at);
  }
  if (lines.length === 0) files.delete(snippet.path);
  else files.set(snippet.path, lines.join("\n") + "\n");
  return undefined;
}
