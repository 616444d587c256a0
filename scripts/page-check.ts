// pnpm exec tsx scripts/page-check.ts N [N...]
//
// What a chapter page's placed snippets cover, without building the site: the share of the
// chapter's changed src lines the page shows, what it lists as not shown, every changed line it
// does neither for (file, line and text), and the page with its blocks expanded, written to
// test-results/page-preview/NN-slug.md to read. A selector that names nothing fails here as it
// would fail the build.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expandSolutions } from "../docs/.vitepress/exercise-solutions.ts";
import {
  changesOf,
  counts,
  expandBlocks,
  pageCoverage,
  placedPage,
} from "../docs/.vitepress/placed-snippets.ts";
import { rebuildChapter } from "../test/site/rebuild.ts";
import { listChapters, ROOT } from "./lib/chapters.ts";

// Piped into `head`, the reader has seen enough: a closed pipe ends the run quietly.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(0);
  throw error;
});

const wanted = process.argv.slice(2).map(Number);
const chapters = listChapters().filter((c) => wanted.length === 0 || wanted.includes(c.number));
const previewDir = join(ROOT, "test-results", "page-preview");
mkdirSync(previewDir, { recursive: true });
let failed = false;
for (const chapter of chapters) {
  const page = join(ROOT, "docs", "chapters", `${chapter.slug}.md`);
  // A chapter being written may have no page yet: say so, and go on with the others.
  if (!existsSync(page)) {
    console.log(`${chapter.slug}: no page yet (docs/chapters/${chapter.slug}.md)`);
    failed = true;
    continue;
  }
  const markdown = readFileSync(page, "utf8");
  try {
    const coverage = pageCoverage(chapter.slug, markdown);
    const shown = ((coverage.shown / coverage.total) * 100).toFixed(1);
    console.log(
      `${chapter.slug}: ${coverage.shown} of ${coverage.total} changed src lines shown (${shown}%), ${coverage.notShown} listed as not shown, ${coverage.missing.length} neither`,
    );
    for (const change of changesOf(chapter.slug)) {
      const lines = change.lines.filter(counts).length;
      console.log(`  ${change.status.padEnd(8)} ${change.path} (${lines} lines)`);
    }
    for (const line of coverage.missing.slice(0, 40)) console.log(`  missing ${line}`);
    for (const snippet of placedPage(chapter.slug, markdown).filter((s) => s.repeats)) {
      console.log(
        `  repeats ${snippet.path}#${snippet.block.selectors.join(",")}: every line it selects is shown above`,
      );
      failed = true;
    }
    for (const problem of rebuildChapter(chapter.slug).unplaced)
      console.log(`  unplaced ${problem}`);
    if (coverage.missing.length > 40) console.log(`  … ${coverage.missing.length - 40} more`);
    const expanded = expandSolutions(chapter.slug, expandBlocks(chapter.slug, markdown));
    writeFileSync(join(previewDir, `${chapter.slug}.md`), expanded);
    console.log(`  preview: test-results/page-preview/${chapter.slug}.md`);
    if (coverage.missing.length > 0 || coverage.shown / coverage.total < 0.85) failed = true;
  } catch (error) {
    console.log(`${chapter.slug}: ${error instanceof Error ? error.message : String(error)}`);
    failed = true;
  }
}
process.exitCode = failed ? 1 : 0;
