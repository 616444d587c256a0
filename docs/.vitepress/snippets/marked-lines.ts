// The marks of a placed snippet's highlighted code: each added, removed or folded line's
// `<span class="line">` gets its classes, so the theme draws its `+`, `-` or fold (render.ts says
// which lines; page-blocks.ts calls this on the highlighted HTML).

/**
 * An empty marked line (a blank line to add or delete) stays empty: a reader copies it, and a
 * space in it would be a trailing space in their file, which Prettier and the page's exact
 * unchanged lines would then disagree with. An empty inline-block has no height, so its `+`
 * would sit on the next line: the style gives it one line's height instead.
 */
export const BLANK_MARKED_LINE_STYLE = "height:1lh;vertical-align:top";

/** Adds `classes` to the n-th `<span class="line">` of highlighted code, for each n in `lines`. */
export function markLines(html: string, marks: Array<[number[], string]>): string {
  const byLine = new Map<number, string>();
  for (const [lines, classes] of marks) for (const n of lines) byLine.set(n, classes);
  let n = -1;
  return html
    .replace(/<span class="line">/g, () => {
      n++;
      const classes = byLine.get(n);
      return classes === undefined ? '<span class="line">' : `<span class="line ${classes}">`;
    })
    .replace(
      /<span class="line (diff (?:add|remove))"><\/span>/g,
      `<span class="line $1" style="${BLANK_MARKED_LINE_STYLE}"></span>`,
    );
}
