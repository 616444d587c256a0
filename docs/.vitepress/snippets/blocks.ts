// The two blocks a chapter page writes in its Markdown:
//
//   ::: change src/patch/hash-guard.ts#ReadRecord
//   Why this piece exists, in a sentence or two (Markdown).
//   :::
//
//   ::: not-shown
//   - `src/cli-args.ts`: why the page does not walk through it
//   :::
//
// Selectors (after "#") are read by selectors.ts.

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

export const CHANGE_BLOCK = /^::: change (\S+?)(?:#(\S+))?[ \t]*\n([\s\S]*?)^:::[ \t]*$/gm;
export const NOT_SHOWN_BLOCK = /^::: not-shown[ \t]*\n([\s\S]*?)^:::[ \t]*$/gm;
const NOT_SHOWN_ITEM = /^- `([^`#]+)(?:#([^`]+))?`:\s*(.+)$/;

export function selectorList(text: string | undefined): string[] {
  return text === undefined ? [] : text.split(",").filter(Boolean);
}

/** A page's change blocks, in page order. */
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
