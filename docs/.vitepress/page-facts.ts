// What a chapter page tells its reader before they start: how long it takes to read, how long to
// build along, and which files the chapter touches. Computed from the page as the site renders it
// (its `::: change` and `::: solution` blocks expanded), so the numbers follow the page when it
// changes; docs/index.md shows the formula to the reader.
//
//   reading minutes = prose words / 200  +  (code lines shown + lines of captured runs) / 30
//   build minutes   = reading minutes  +  code lines shown / 8  +  15  +  5 per `pnpm` command shown
//
// 200 words a minute is a careful pace for technical prose; code and captured runs are read at 30
// lines a minute (a line of code is a few words, but each must be understood). Building
// along means placing each shown line in its file and checking it against the page, about 8 lines
// a minute; then 15 minutes to run the chapter's tests and fix what they find, and 5 minutes for
// each command the page asks you to run and compare. The constants were checked against a
// reader's rebuild of every chapter from its page (36-65 minutes to read, 2-4 hours to build).
// Folded blocks (<details> and `::: details`: the full diff, exercise solutions) are not counted:
// a reader opens them on demand. Captured runs (`<<< @/outputs/...` imports) count as reading only.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expandSolutions } from "./exercise-solutions.ts";
import { expandBlocks } from "./placed-snippets.ts";
import { DOCS_DIR } from "./chapters.ts";

export { formatMinutes } from "./minutes.ts";

export const WORDS_PER_MINUTE = 200;
export const CODE_LINES_READ_PER_MINUTE = 30;
export const CODE_LINES_BUILT_PER_MINUTE = 8;
export const MINUTES_TO_TEST = 15;
export const MINUTES_PER_CHECKPOINT = 5;

export interface PageCounts {
  proseWords: number;
  codeLines: number;
  /** Lines of the captured runs the page includes (`<<< @/outputs/...`), read but not built. */
  runLines: number;
  checkpoints: number;
}

export interface PageTimes extends PageCounts {
  readMinutes: number;
  buildMinutes: number;
}

function readLines(path: string): number {
  return existsSync(path) ? readFileSync(path, "utf8").split("\n").length : 0;
}

const FENCE = /^\s*(`{3,}|~{3,})/;

/** Words of prose and lines of code in a page's expanded Markdown, outside folded blocks. */
export function countPage(markdown: string): PageCounts {
  const body = markdown
    .replace(/^---\n[\s\S]*?\n---\n/, "")
    .replace(/<script[\s\S]*?<\/script>/g, "")
    .replace(/<style[\s\S]*?<\/style>/g, "");
  let proseWords = 0;
  let codeLines = 0;
  let checkpoints = 0;
  let runLines = 0;
  let fence: string | undefined;
  let folded = 0; // open <details> elements
  const containers: string[] = []; // open `::: name` containers; `::: details` folds too
  for (const line of body.split("\n")) {
    if (fence !== undefined) {
      if (line.trim().startsWith(fence) && line.trim().replace(/[`~]/g, "") === "")
        fence = undefined;
      else if (folded === 0 && !containers.includes("details")) {
        codeLines++;
        if (/^\$?\s*pnpm /.test(line.trim())) checkpoints++;
      }
      continue;
    }
    const opening = FENCE.exec(line);
    if (opening) {
      fence = opening[1];
      continue;
    }
    const container = /^\s*:::+\s*(\S*)/.exec(line);
    if (container) {
      if (container[1]) containers.push(container[1]);
      else containers.pop();
      continue;
    }
    folded += (line.match(/<details\b/g) ?? []).length;
    folded -= (line.match(/<\/details>/g) ?? []).length;
    if (folded > 0 || containers.includes("details")) continue;
    const run = /^<<< @\/(outputs\/\S+?)(\{|$)/.exec(line);
    if (run) runLines += readLines(join(DOCS_DIR, run[1]!));
    if (line.startsWith("<<<")) continue;
    const text = line.replace(/<[^>]+>/g, " ").replace(/[#*_`|>[\]()-]+/g, " ");
    proseWords += text.split(/\s+/).filter((word) => /\w/.test(word)).length;
  }
  return { proseWords, codeLines, runLines, checkpoints };
}

export function pageTimes(counts: PageCounts): PageTimes {
  const readMinutes = Math.round(
    counts.proseWords / WORDS_PER_MINUTE +
      (counts.codeLines + counts.runLines) / CODE_LINES_READ_PER_MINUTE,
  );
  const buildMinutes = Math.round(
    readMinutes +
      counts.codeLines / CODE_LINES_BUILT_PER_MINUTE +
      MINUTES_TO_TEST +
      counts.checkpoints * MINUTES_PER_CHECKPOINT,
  );
  return { ...counts, readMinutes, buildMinutes };
}

/** The expanded Markdown of docs/chapters/<slug>.md, as the site renders it. */
export function expandedPage(slug: string): string {
  const source = readFileSync(join(DOCS_DIR, "chapters", `${slug}.md`), "utf8");
  return expandSolutions(slug, expandBlocks(slug, source));
}

const cache = new Map<string, PageTimes>();

export function chapterTimes(slug: string): PageTimes {
  const known = cache.get(slug);
  if (known) return known;
  const times = pageTimes(countPage(expandedPage(slug)));
  cache.set(slug, times);
  return times;
}
