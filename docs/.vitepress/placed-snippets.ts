// Placed snippets: a chapter page shows the lines its lesson builds as pieces of the real diff,
// each captioned with its file and the declaration it goes in or after, in the manner of Crafting
// Interpreters. The pieces, one concept a file, in snippets/:
//
//   blocks.ts        the `::: change` and `::: not-shown` blocks a page writes
//   diff.ts          each file's change against the previous chapter, as a whole-file diff
//   selectors.ts     what a block's "#name,L3-9" picks of that change
//   declarations.ts  the names a caption places code by
//   reader.ts        the reader's rules for putting a snippet in place
//   placement.ts     each block against the code the reader has then: hunks, context, captions
//   coverage.ts      how much of the chapter's change a page shows
//   render.ts        the caption and the marked code a block becomes
//   marked-lines.ts  those marks put on the highlighted lines (called from page-blocks.ts)
//
// test/site/rebuild-from-pages.test.ts rebuilds every chapter from its page by reader.ts alone.
import { relative, sep } from "node:path";
import { CHANGE_BLOCK, changeBlocks, NOT_SHOWN_BLOCK, notShownItems } from "./snippets/blocks.ts";
import { findChange } from "./snippets/diff.ts";
import { placeBlocks, type PlacedBlock } from "./snippets/placement.ts";
import { renderNotShown, renderPlaced } from "./snippets/render.ts";

export { changeBlocks, notShownItems } from "./snippets/blocks.ts";
export { changeOfTexts, changesOf, counts, findChange, previousSlug } from "./snippets/diff.ts";
export { pageCoverage } from "./snippets/coverage.ts";
export { placeBlocks } from "./snippets/placement.ts";
export { MARKS, renderPlaced } from "./snippets/render.ts";
export { select } from "./snippets/selectors.ts";

/** A chapter page's change blocks, in page order, placed as the reader will place them. */
export function placedPage(slug: string, markdown: string): PlacedBlock[] {
  return placeBlocks(
    changeBlocks(markdown).map((block) => ({ block, change: findChange(slug, block.path) })),
  );
}

/** A page's Markdown with its change and not-shown blocks expanded; others left as they are. */
export function expandBlocks(slug: string, markdown: string): string {
  const placed = placedPage(slug, markdown);
  let k = 0;
  const render = () => {
    const index = k++;
    return placed
      .filter((snippet) => snippet.index === index)
      .map(renderPlaced)
      .join("\n\n");
  };
  return markdown
    .replace(CHANGE_BLOCK, render)
    .replace(NOT_SHOWN_BLOCK, (all: string) => renderNotShown(slug, notShownItems(all)));
}

/** "docs/chapters/11-hash-guard.md" -> "11-hash-guard"; undefined for other pages. */
export function pageChapter(relativePath: string): string | undefined {
  const match = /^chapters\/([^/]+)\.md$/.exec(relative(".", relativePath).split(sep).join("/"));
  return match?.[1];
}
