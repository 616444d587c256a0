// A placed snippet as the page shows it: a caption (the file, where the code goes, why), then the
// code, its added and removed lines marked and the unchanged stretches between hunks folded to one
// "⋯ N unchanged lines" line. The fence renderer in page-blocks.ts colours the marks.
import { fenceFor } from "../exercise-solutions.ts";
import type { NotShownItem } from "./blocks.ts";
import { counts, findChange } from "./diff.ts";
import type { PlacedBlock } from "./placement.ts";
import { select } from "./selectors.ts";

const LANGUAGES: Record<string, string> = { ts: "ts", mjs: "js", js: "js", json: "json", md: "md" };

function language(path: string): string {
  return LANGUAGES[path.split(".").pop() ?? ""] ?? "text";
}

/** The fence's info string carries the marks to the fence renderer (page-blocks.ts). */
export const MARKS = "change-marks=";

interface Rendered {
  code: string;
  /** 0-based indexes of the code's lines: added, removed, folded. */
  added: number[];
  removed: number[];
  folded: number[];
}

function foldLine(path: string, hidden: number): string {
  const what = hidden === 1 ? "1 unchanged line" : `${hidden} unchanged lines`;
  const lang = language(path);
  return lang === "ts" || lang === "js" ? `// ⋯ ${what}` : `⋯ ${what}`;
}

function renderRows(placed: PlacedBlock): Rendered {
  const out: Rendered = { code: "", added: [], removed: [], folded: [] };
  const text: string[] = [];
  placed.hunks.forEach((hunk, i) => {
    if (i > 0) {
      out.folded.push(text.length);
      text.push(foldLine(placed.path, placed.folded[i - 1]!));
    }
    for (const row of hunk.rows) {
      if (row.kind === "+") out.added.push(text.length);
      if (row.kind === "-") out.removed.push(text.length);
      text.push(row.text);
    }
  });
  out.code = text.join("\n");
  return out;
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function fence(lang: string, rendered: Rendered, diffMarks: boolean): string {
  const marks = diffMarks
    ? ` ${MARKS}${rendered.added.join(".")}|${rendered.removed.join(".")}|${rendered.folded.join(".")}`
    : ` ${MARKS}||${rendered.folded.join(".")}`;
  const ticks = fenceFor(rendered.code);
  return `${ticks}${lang}${marks}\n${rendered.code}\n${ticks}`;
}

/** The Markdown of a placed block: its caption (file, where, why), then the code. */
export function renderPlaced(placed: PlacedBlock): string {
  const where = escapeHtml(placed.caption).replace(/`([^`]+)`/g, "<code>$1</code>");
  const caption = [
    `<div class="change-caption">`,
    `<div class="change-place"><code class="change-file">${escapeHtml(placed.path)}</code>` +
      `<span class="change-where">${where}</span></div>`,
    ...(placed.block.why ? ["", placed.block.why] : []),
    "",
    `</div>`,
    "",
  ];
  const lang = language(placed.path);
  const rendered = renderRows(placed);
  if (placed.file === "deleted" && placed.block.selectors.length === 0) {
    const lines = placed.hunks.reduce((sum, hunk) => sum + hunk.rows.length, 0);
    return [
      `<div class="change change-deleted">`,
      ...caption,
      `<details><summary>The removed file (${lines} lines)</summary>`,
      "",
      fence(lang, rendered, true),
      "",
      `</details>`,
      `</div>`,
    ].join("\n");
  }
  // A new file, or a new piece of one, is all additions: shown as plain code, not a wall of green.
  const allNew = placed.hunks.every((hunk) => hunk.rows.every((row) => row.kind === "+"));
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
    const lines = select(findChange(slug, item.path), item.selectors).filter(counts).length;
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
