// How much of a chapter's changed src lines its page shows: test/site/page-coverage.test.ts holds
// every page to showing at least 85% of them and to listing the rest as not shown, and
// scripts/page-check.ts prints it.
import { changeBlocks, notShownItems } from "./blocks.ts";
import { changesOf, counts, findChange, lineKey } from "./diff.ts";
import { select } from "./selectors.ts";

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
      .filter(counts)
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
