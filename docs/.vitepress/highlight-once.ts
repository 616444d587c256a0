// The site asks Shiki for the same code block many times (3,306 asks, 1,226 distinct blocks in
// one build): a file unchanged across chapters is shown in each chapter's file browser (its
// fragments differ only in the marked lines, added after highlighting), and a placed snippet's
// context is often shown again. The highlighter is a pure function of the code, its language and
// the fence's attributes, so each distinct block is highlighted once per build.
import type { MarkdownRenderer } from "vitepress";

type Highlight = NonNullable<MarkdownRenderer["options"]["highlight"]>;

// One memo for every renderer of the build: the pages' and the file browser's fragments.
const highlighted = new Map<string, string>();
let asked = 0;

/** How many blocks were asked for, and how many distinct ones were highlighted. */
export function highlightCounts(): { asked: number; distinct: number } {
  return { asked, distinct: highlighted.size };
}

/** Wraps `md`'s highlighter so a block already highlighted in this build is not highlighted again. */
export function highlightOnce(md: MarkdownRenderer): void {
  const highlight: Highlight | null | undefined = md.options.highlight;
  if (!highlight) return;
  md.options.highlight = (code, lang, attrs) => {
    asked++;
    const key = `${lang}\0${attrs}\0${code}`;
    const known = highlighted.get(key);
    if (known !== undefined) return known;
    const html = highlight(code, lang, attrs);
    highlighted.set(key, html);
    return html;
  };
}
