// Placed snippets: a chapter page shows the lines its lesson builds as pieces of the real diff,
// each captioned with its file and where it goes, in the manner of Crafting Interpreters.
//
//   ::: change src/patch/hash-guard.ts#ReadRecord
//   Why this piece exists, in a sentence or two (Markdown).
//   :::
//
// The selector after "#" picks what to show of that file's change against the previous chapter:
//   (none)          every change in the file (a new file whole, a deleted one folded)
//   #name           a top-level declaration; #Class-member one member of a class
//   #L12-40         lines 12 to 40 of the new file
//   #a,b,L3-9       several of these, shown as one snippet
// A declaration that only the previous chapter has (the lesson deletes it) is shown as removed.
//
//   ::: not-shown
//   - `src/cli-args.ts`: why the page does not walk through it
//   :::
//
// lists what the page leaves out, with the same selectors. test/site/page-coverage.test.ts holds
// every page to showing at least 85% of its chapter's changed src lines, and to listing the rest.
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { diffArgs } from "../../scripts/lib/chapter-diff.ts";
import { listChapters, ROOT } from "../../scripts/lib/chapters.ts";
import { namedRange, topLevelDeclarations } from "./code-import.ts";
import { fenceFor } from "./exercise-solutions.ts";

export interface DiffLine {
  kind: " " | "+" | "-";
  text: string;
  /** 1-based line in the previous chapter's file (context and removed lines). */
  oldLine?: number;
  /** 1-based line in this chapter's file (context and added lines). */
  newLine?: number;
}

export interface FileChange {
  /** Path inside the chapter, e.g. "src/patch/hash-guard.ts". */
  path: string;
  status: "added" | "deleted" | "modified";
  /** The whole file as a diff: every line of both versions, in order. */
  lines: DiffLine[];
  oldLines: string[];
  newLines: string[];
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((name) => statSync(join(dir, name)).isFile())
    .map((name) => name.split(sep).join("/"))
    .sort();
}

function textLines(path: string): string[] {
  if (!existsSync(path)) return [];
  const text = readFileSync(path, "utf8");
  const lines = text.split("\n");
  if (text.endsWith("\n")) lines.pop();
  return lines;
}

/** The whole-file diff of two versions, from GNU diff with unlimited context (as `pnpm diff`). */
function wholeFileDiff(oldPath: string, newPath: string): DiffLine[] {
  const result = spawnSync("diff", diffArgs(["-N", "-U", "1000000000"], oldPath, newPath), {
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
  });
  if (result.status !== 0 && result.status !== 1) {
    throw new Error(`diff ${oldPath} ${newPath} failed: ${result.stderr || result.error?.message}`);
  }
  const lines: DiffLine[] = [];
  let oldLine = 0;
  let newLine = 0;
  let inHunk = false;
  for (const raw of result.stdout.split("\n")) {
    if (raw.startsWith("@@")) {
      inHunk = true;
      continue;
    }
    if (!inHunk || raw === "\\ No newline at end of file") continue;
    const kind = raw[0];
    if (kind === " ")
      lines.push({ kind, text: raw.slice(1), oldLine: ++oldLine, newLine: ++newLine });
    else if (kind === "-") lines.push({ kind, text: raw.slice(1), oldLine: ++oldLine });
    else if (kind === "+") lines.push({ kind, text: raw.slice(1), newLine: ++newLine });
  }
  return lines;
}

/** Every file of `src/` that chapter `to` adds, deletes or changes against chapter `from`. */
export function chapterChanges(from: string | undefined, to: string): FileChange[] {
  const oldDir = from === undefined ? undefined : join(ROOT, "chapters", from, "src");
  const newDir = join(ROOT, "chapters", to, "src");
  const paths = new Set([...(oldDir ? filesUnder(oldDir) : []), ...filesUnder(newDir)]);
  const changes: FileChange[] = [];
  for (const file of [...paths].sort()) {
    const oldPath = oldDir ? join(oldDir, file) : "/dev/null";
    const newPath = join(newDir, file);
    const oldLines = textLines(oldPath);
    const newLines = textLines(newPath);
    if (oldDir && existsSync(oldPath) && existsSync(newPath) && sameText(oldLines, newLines)) {
      continue;
    }
    const status =
      oldDir === undefined || !existsSync(oldPath)
        ? "added"
        : !existsSync(newPath)
          ? "deleted"
          : "modified";
    const lines =
      status === "added"
        ? newLines.map((text, i): DiffLine => ({ kind: "+", text, newLine: i + 1 }))
        : status === "deleted"
          ? oldLines.map((text, i): DiffLine => ({ kind: "-", text, oldLine: i + 1 }))
          : wholeFileDiff(oldPath, newPath);
    changes.push({ path: `src/${file}`, status, lines, oldLines, newLines });
  }
  return changes;
}

/** The change between two texts of one file, as chapterChanges sees it: for tests. */
export function changeOfTexts(
  path: string,
  oldText: string | undefined,
  newText: string | undefined,
): FileChange {
  const dir = mkdtempSync(join(tmpdir(), "placed-"));
  try {
    const oldPath = join(dir, "old");
    const newPath = join(dir, "new");
    if (oldText !== undefined) writeFileSync(oldPath, oldText);
    if (newText !== undefined) writeFileSync(newPath, newText);
    const oldLines = textLines(oldPath);
    const newLines = textLines(newPath);
    const status = oldText === undefined ? "added" : newText === undefined ? "deleted" : "modified";
    const lines =
      status === "added"
        ? newLines.map((text, i): DiffLine => ({ kind: "+", text, newLine: i + 1 }))
        : status === "deleted"
          ? oldLines.map((text, i): DiffLine => ({ kind: "-", text, oldLine: i + 1 }))
          : wholeFileDiff(oldPath, newPath);
    return { path, status, lines, oldLines, newLines };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function sameText(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((line, i) => line === b[i]);
}

/** A changed line that counts: blank lines do not, as in `pnpm chapters:check`. */
export function counts(line: DiffLine): boolean {
  return line.kind !== " " && line.text.trim() !== "";
}

/** A changed line's identity within its chapter, for coverage. */
export function lineKey(path: string, line: DiffLine): string {
  return line.kind === "+" ? `${path}:+${line.newLine}` : `${path}:-${line.oldLine}`;
}

// ---------------------------------------------------------------------------------------------
// Selecting part of a file's change

export interface Selection {
  /** The diff lines shown, in file order. */
  lines: DiffLine[];
  /** Where the snippet goes, for its caption: "new file", "changes `applyPatch`", ... */
  where: string;
}

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
function newRange(change: FileChange, first: number, last: number): Set<DiffLine> {
  const anchor = anchors(change.lines);
  const endOfFile = change.newLines.length;
  return new Set(
    change.lines.filter((line, i) => {
      if (line.kind !== "-") return inNew(line, first, last);
      const at = anchor[i]!;
      if (at > endOfFile) return last === endOfFile;
      if (at > first && at <= last) return true;
      const next = change.lines.slice(i).find((l) => l.kind !== "-");
      return at === first && next?.kind === "+";
    }),
  );
}

/** The diff lines of old-file lines [first, last]: a declaration the lesson deletes. */
function oldRange(change: FileChange, first: number, last: number): Set<DiffLine> {
  return new Set(
    change.lines.filter(
      (line) => line.oldLine !== undefined && line.oldLine >= first && line.oldLine <= last,
    ),
  );
}

function code(name: string): string {
  return "`" + name + "`";
}

/** The top-level declaration enclosing new-file line `line` (1-based), if any. */
function enclosing(change: FileChange, line: number): string | undefined {
  const declarations = topLevelDeclarations(change.newLines);
  for (let i = declarations.length - 1; i >= 0; i--) {
    const declaration = declarations[i]!;
    const range = namedRange(change.newLines, declaration.name);
    if (range && range[0] + 1 <= line && line <= range[1] + 1) return declaration.name;
  }
  return undefined;
}

function plusMinus(lines: Iterable<DiffLine>): string {
  let added = 0;
  let removed = 0;
  for (const line of lines) {
    if (!counts(line)) continue;
    if (line.kind === "+") added++;
    else removed++;
  }
  return [added > 0 ? `+${added}` : "", removed > 0 ? `−${removed}` : ""].filter(Boolean).join(" ");
}

/** One selector's lines and caption; throws with a fix when it names nothing. */
function selectOne(change: FileChange, selector: string): Selection {
  const where = `${change.path}#${selector}`;
  const lineRange = /^L(\d+)-(\d+)$/.exec(selector);
  if (lineRange) {
    const [first, last] = [Number(lineRange[1]), Number(lineRange[2])];
    if (first < 1 || last < first || last > change.newLines.length) {
      throw new Error(
        `${where}: the file has ${change.newLines.length} lines; use #L<first>-<last> within them.`,
      );
    }
    const lines = newRange(change, first, last);
    const inside = enclosing(change, first);
    const place = inside && inside === enclosing(change, last) ? ` in ${code(inside)}` : "";
    const span = first === last ? `line ${first}` : `lines ${first}–${last}`;
    return { lines: [...lines], where: `${span}${place}` };
  }
  const inNewFile = namedRange(change.newLines, selector);
  if (inNewFile) {
    const lines = newRange(change, inNewFile[0] + 1, inNewFile[1] + 1);
    const label = code(selector.replace("-", "."));
    if (change.status === "added") return { lines: [...lines], where: `new file, ${label}` };
    const existed = namedRange(change.oldLines, selector) !== undefined;
    if (existed) return { lines: [...lines], where: `changes ${label}` };
    const before = topLevelDeclarations(change.newLines).filter((d) => d.line < inNewFile[0]);
    const after = before.at(-1);
    return {
      lines: [...lines],
      where: after ? `new ${label}, after ${code(after.name)}` : `new ${label}, before the rest`,
    };
  }
  const inOldFile = namedRange(change.oldLines, selector);
  if (inOldFile) {
    return {
      lines: [...oldRange(change, inOldFile[0] + 1, inOldFile[1] + 1)],
      where: `removes ${code(selector.replace("-", "."))}`,
    };
  }
  throw new Error(
    `${where}: no declaration, Class-member or line range by that name in either chapter's version of the file. ` +
      `Fix the selector on the page.`,
  );
}

/** What "path#a,b" shows: all of a file's change without selectors, else the union of each. */
export function select(change: FileChange, selectors: string[]): Selection {
  if (selectors.length === 0) {
    const where =
      change.status === "added"
        ? "new file"
        : change.status === "deleted"
          ? "deleted file"
          : wholeFileWhere(change);
    return { lines: change.lines, where };
  }
  const picked = selectors.map((selector) => selectOne(change, selector));
  const chosen = new Set(picked.flatMap((selection) => selection.lines));
  const lines = change.lines.filter((line) => chosen.has(line));
  return { lines, where: picked.map((selection) => selection.where).join("; ") };
}

/** "changes `a`, `b` and the imports (+12 −3)" for a whole modified file. */
function wholeFileWhere(change: FileChange): string {
  const places: string[] = [];
  const anchor = anchors(change.lines);
  change.lines.forEach((line, i) => {
    if (!counts(line)) return;
    const at = Math.min(anchor[i]!, change.newLines.length);
    const name =
      enclosing(change, at) ?? (/^import\b/.test(line.text) ? "the imports" : "top level");
    if (!places.includes(name)) places.push(name);
  });
  const named = places.map((place) =>
    place.startsWith("the ") || place === "top level" ? place : code(place),
  );
  const list =
    named.length <= 1 ? named.join("") : `${named.slice(0, -1).join(", ")} and ${named.at(-1)}`;
  return `changes ${list} (${plusMinus(change.lines)})`;
}

// ---------------------------------------------------------------------------------------------
// Pages

export interface ChangeBlock {
  path: string;
  selectors: string[];
  /** The Markdown between the opening and closing lines: why this piece exists. */
  why: string;
}

export interface NotShownItem {
  path: string;
  selectors: string[];
  reason: string;
}

const CHANGE_BLOCK = /^::: change (\S+?)(?:#(\S+))?[ \t]*\n([\s\S]*?)^:::[ \t]*$/gm;
const NOT_SHOWN_BLOCK = /^::: not-shown[ \t]*\n([\s\S]*?)^:::[ \t]*$/gm;
const NOT_SHOWN_ITEM = /^- `([^`#]+)(?:#([^`]+))?`:\s*(.+)$/;

function selectorList(text: string | undefined): string[] {
  return text === undefined ? [] : text.split(",").filter(Boolean);
}

export function changeBlocks(markdown: string): ChangeBlock[] {
  return [...markdown.matchAll(CHANGE_BLOCK)].map((match) => ({
    path: match[1]!,
    selectors: selectorList(match[2]),
    why: match[3]!.trim(),
  }));
}

export function notShownItems(markdown: string): NotShownItem[] {
  return [...markdown.matchAll(NOT_SHOWN_BLOCK)].flatMap((match) =>
    match[1]!
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => {
        const item = NOT_SHOWN_ITEM.exec(line.trim());
        if (!item) {
          throw new Error(
            `A ::: not-shown list item must read "- \`src/file.ts\`: why it is not shown" (or \`src/file.ts#name\`), not: ${line.trim()}`,
          );
        }
        return { path: item[1]!, selectors: selectorList(item[2]), reason: item[3]!.trim() };
      }),
  );
}

/** The chapter before `slug` (undefined for the first), from chapters/. */
export function previousSlug(slug: string): string | undefined {
  const chapters = listChapters();
  const index = chapters.findIndex((chapter) => chapter.slug === slug);
  if (index === -1) throw new Error(`no chapter ${slug} in chapters/`);
  return chapters[index - 1]?.slug;
}

const changesCache = new Map<string, FileChange[]>();

/** A chapter's changes, computed once per process (a build renders each page once). */
export function changesOf(slug: string): FileChange[] {
  let changes = changesCache.get(slug);
  if (changes === undefined) {
    changes = chapterChanges(previousSlug(slug), slug);
    changesCache.set(slug, changes);
  }
  return changes;
}

export function findChange(slug: string, path: string): FileChange {
  const change = changesOf(slug).find((c) => c.path === path);
  if (change === undefined) {
    throw new Error(
      `${path} does not change in chapter ${slug}` +
        (existsSync(join(ROOT, "chapters", slug, path))
          ? " (it is the same as in the chapter before)."
          : " (no such file)."),
    );
  }
  return change;
}

export interface PageCoverage {
  /** Changed src lines that count (non-blank), in the whole chapter. */
  total: number;
  shown: number;
  notShown: number;
  /** Counted lines neither shown nor listed, as "path:+line text". */
  missing: string[];
}

/** How much of chapter `slug`'s changed src lines a page's change blocks show. */
export function pageCoverage(slug: string, markdown: string): PageCoverage {
  const changes = changesOf(slug);
  const keysOf = (path: string, selectors: string[]) =>
    select(findChange(slug, path), selectors)
      .lines.filter(counts)
      .map((line) => lineKey(path, line));
  const shown = new Set(changeBlocks(markdown).flatMap((b) => keysOf(b.path, b.selectors)));
  const listed = new Set(notShownItems(markdown).flatMap((i) => keysOf(i.path, i.selectors)));
  let total = 0;
  let notShown = 0;
  const missing: string[] = [];
  for (const change of changes) {
    for (const line of change.lines.filter(counts)) {
      total++;
      const key = lineKey(change.path, line);
      if (shown.has(key)) continue;
      if (listed.has(key)) notShown++;
      else missing.push(`${key} ${line.text.trim()}`);
    }
  }
  return { total, shown: shown.size, notShown, missing };
}

// ---------------------------------------------------------------------------------------------
// Rendering: the blocks become a caption, the why, and a fenced block the highlighter colours.

/** Runs of unchanged lines longer than this are folded to a "⋯ N unchanged lines" line. */
const KEEP_AROUND = 3;

const LANGUAGES: Record<string, string> = { ts: "ts", mjs: "js", js: "js", json: "json", md: "md" };

function language(path: string): string {
  return LANGUAGES[path.split(".").pop() ?? ""] ?? "text";
}

interface Rendered {
  code: string;
  /** 0-based indexes of the code's lines: added, removed, folded. */
  added: number[];
  removed: number[];
  folded: number[];
}

/**
 * The selected lines with context: changes are shown with up to KEEP_AROUND unchanged lines either
 * side; a selected declaration's unchanged lines are shown when a run of them is short. Whatever
 * lies between the first and last shown line and is not shown becomes one "⋯" line.
 */
function renderLines(change: FileChange, chosen: DiffLine[]): Rendered {
  const picked = new Set(chosen);
  const all = change.lines;
  const isChange = all.map((line) => line.kind !== " " && picked.has(line));
  const near = all.map((_, i) => {
    for (let d = -KEEP_AROUND; d <= KEEP_AROUND; d++) if (isChange[i + d]) return true;
    return false;
  });
  // Context outside the selection (a declaration's neighbours) is never shown.
  const visible = all.map((line, i) =>
    line.kind === " " ? near[i]! && picked.has(line) : isChange[i]!,
  );
  // Selected unchanged lines away from any change (a declaration's signature, its closing brace)
  // are shown when their run is short enough to read past.
  for (let i = 0; i < all.length;) {
    if (all[i]!.kind !== " " || visible[i] || !picked.has(all[i]!)) {
      i++;
      continue;
    }
    let j = i;
    while (j < all.length && all[j]!.kind === " " && !visible[j] && picked.has(all[j]!)) j++;
    if (j - i <= 2 * KEEP_AROUND) for (let k = i; k < j; k++) visible[k] = true;
    i = j;
  }
  // A gap made only of blank lines (between two selected declarations) is shown, not folded.
  for (let i = 0; i < all.length;) {
    if (visible[i]) {
      i++;
      continue;
    }
    let j = i;
    while (j < all.length && !visible[j]) j++;
    if (all.slice(i, j).every((line) => line.text.trim() === "")) {
      for (let k = i; k < j; k++) visible[k] = true;
    }
    i = j;
  }
  // Blank context at either end is noise.
  for (
    let i = 0;
    i < all.length && ((all[i]!.kind === " " && all[i]!.text.trim() === "") || !visible[i]);
    i++
  )
    visible[i] = false;
  for (
    let i = all.length - 1;
    i >= 0 && ((all[i]!.kind === " " && all[i]!.text.trim() === "") || !visible[i]);
    i--
  )
    visible[i] = false;
  const out: Rendered = { code: "", added: [], removed: [], folded: [] };
  const first = visible.indexOf(true);
  const last = visible.lastIndexOf(true);
  const text: string[] = [];
  for (let i = first; i >= 0 && i <= last; i++) {
    if (!visible[i]) {
      let j = i;
      let hidden = 0;
      let changed = false;
      for (; j <= last && !visible[j]; j++) {
        if (all[j]!.kind !== "-") hidden++;
        if (all[j]!.kind !== " ") changed = true;
      }
      out.folded.push(text.length);
      text.push(foldLine(change.path, hidden, changed));
      i = j - 1;
      continue;
    }
    const line = all[i]!;
    if (line.kind === "+") out.added.push(text.length);
    if (line.kind === "-") out.removed.push(text.length);
    text.push(line.text);
  }
  out.code = text.join("\n");
  return out;
}

function foldLine(path: string, hidden: number, changed: boolean): string {
  const lines = hidden === 0 ? "removed lines" : hidden === 1 ? "1 line" : `${hidden} lines`;
  const what = changed
    ? `${lines} not shown here`
    : `${hidden === 1 ? "1 unchanged line" : `${hidden} unchanged lines`}`;
  const lang = language(path);
  return lang === "ts" || lang === "js" ? `// ⋯ ${what}` : `⋯ ${what}`;
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** The fence's info string carries the marks to the fence renderer (docs/.vitepress/config.ts). */
export const MARKS = "change-marks=";

function fence(lang: string, rendered: Rendered, diffMarks: boolean): string {
  const marks = diffMarks
    ? ` ${MARKS}${rendered.added.join(".")}|${rendered.removed.join(".")}|${rendered.folded.join(".")}`
    : ` ${MARKS}||${rendered.folded.join(".")}`;
  const ticks = fenceFor(rendered.code);
  return `${ticks}${lang}${marks}\n${rendered.code}\n${ticks}`;
}

/** The Markdown a change block becomes. */
export function renderChangeBlock(slug: string, block: ChangeBlock): string {
  return renderChange(findChange(slug, block.path), block);
}

/** The Markdown of a block showing part of `change`: its caption (file, where, why), then the code. */
export function renderChange(change: FileChange, block: ChangeBlock): string {
  const selection = select(change, block.selectors);
  const where = escapeHtml(selection.where).replace(/`([^`]+)`/g, "<code>$1</code>");
  const caption = [
    `<div class="change-caption">`,
    `<div class="change-place"><code class="change-file">${escapeHtml(block.path)}</code>` +
      `<span class="change-where">${where}</span></div>`,
    "",
    block.why,
    "",
    `</div>`,
    "",
  ];
  const lang = language(block.path);
  const rendered = renderLines(change, selection.lines);
  if (change.status === "deleted" && block.selectors.length === 0) {
    return [
      `<div class="change change-deleted">`,
      ...caption,
      `<details><summary>The removed file (${change.oldLines.length} lines)</summary>`,
      "",
      fence(lang, rendered, true),
      "",
      `</details>`,
      `</div>`,
    ].join("\n");
  }
  // A new file, or a new declaration, is all additions: shown as plain code, not a wall of green.
  const allNew = selection.lines.every((line) => line.kind === "+");
  return [
    `<div class="change${allNew ? " change-new" : ""}">`,
    ...caption,
    fence(lang, rendered, !allNew),
    "",
    `</div>`,
  ].join("\n");
}

/** The Markdown a not-shown list becomes: a titled list, each entry with its line count. */
export function renderNotShown(slug: string, items: NotShownItem[]): string {
  const rows = items.map((item) => {
    const lines = select(findChange(slug, item.path), item.selectors).lines.filter(counts).length;
    const name = item.selectors.length ? `${item.path}#${item.selectors.join(",")}` : item.path;
    return `- \`${name}\` (${lines} line${lines === 1 ? "" : "s"}): ${item.reason}`;
  });
  return [
    `<div class="not-shown">`,
    "",
    "**Not shown on this page**, and why:",
    "",
    ...rows,
    "",
    `</div>`,
  ].join("\n");
}

/** A page's Markdown with its change and not-shown blocks expanded; others left as they are. */
export function expandBlocks(slug: string, markdown: string): string {
  return markdown
    .replace(CHANGE_BLOCK, (_all, path: string, selectors: string | undefined, why: string) =>
      renderChangeBlock(slug, { path, selectors: selectorList(selectors), why: why.trim() }),
    )
    .replace(NOT_SHOWN_BLOCK, (all: string) => renderNotShown(slug, notShownItems(all)));
}

/** "docs/chapters/07-hash-guard.md" -> "07-hash-guard"; undefined for other pages. */
export function pageChapter(relativePath: string): string | undefined {
  const match = /^chapters\/([^/]+)\.md$/.exec(relative(".", relativePath).split(sep).join("/"));
  return match?.[1];
}
