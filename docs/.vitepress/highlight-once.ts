// Shiki highlights a code block in about a millisecond per line, and the site asks it for the
// same block many times: a file unchanged across chapters is shown in each chapter's file browser
// (its fragments differ only in the marked lines, added after highlighting), and a placed
// snippet's context is often shown again. The highlighter is a pure function of the code, its
// language and the fence's attributes, so each distinct block is highlighted once per build.
import type { MarkdownRenderer } from "vitepress";

type Highlight = NonNullable<MarkdownRenderer["options"]["highlight"]>;

// One memo for every renderer of the build: the pages' and the file browser's fragments.
const highlighted = new Map<string, string>();
export const highlightStats = { asked: 0, highlighted: 0 };

/** Wraps `md`'s highlighter so a block already highlighted in this build is not highlighted again. */
export function highlightOnce(md: MarkdownRenderer): void {
  const highlight: Highlight | null | undefined = md.options.highlight;
  if (!highlight) return;
  md.options.highlight = (code, lang, attrs) => {
    highlightStats.asked++;
    const key = `${lang}\0${attrs}\0${code}`;
    const known = highlighted.get(key);
    if (known !== undefined) return known;
    highlightStats.highlighted++;
    const html = highlight(code, lang, attrs);
    highlighted.set(key, html);
    return html;
  };
}
