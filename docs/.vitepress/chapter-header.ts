// The box under a chapter page's title that tells the reader what they are in for: how long the
// page takes to read and to build along (page-facts.ts), the files the chapter touches (its diff
// against the chapter before, linked to the chapter's file browser), and where to get the code.
// Inserted as a token after the page's first heading, so it does not depend on the page's text.
import type { MarkdownRenderer } from "vitepress";
import { ARCHIVE_NAME, archiveFormats } from "./code-archive.ts";
import { chapterTimes, formatMinutes } from "./page-facts.ts";
import { changesOf, pageChapter } from "./placed-snippets.ts";

const escape = (text: string): string =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

const STATUS: Record<string, string> = { added: "new", deleted: "deleted", modified: "changed" };

/** "<a>.tar.gz</a> or <a>.zip</a>": the archives docs:build writes (code-archive.ts). */
export function archiveLinks(): string {
  return archiveFormats()
    .map(
      (format) =>
        `<a class="archive-link" href="/${ARCHIVE_NAME}.${format}" download>.${format}</a>`,
    )
    .join(" or ");
}

/** The facts box's HTML for chapter `slug`. */
export function chapterHeader(slug: string): string {
  const times = chapterTimes(slug);
  const files = changesOf(slug).map((change) => {
    const link =
      change.status === "deleted"
        ? `<code>${escape(change.path)}</code>`
        : `<a href="/code/${slug}#${encodeURI(change.path)}"><code>${escape(change.path)}</code></a>`;
    return `<span class="touch-${change.status}">${link} (${STATUS[change.status]})</span>`;
  });
  const touches = `<strong>Files it touches</strong> (${files.length} in <code>src/</code>, tests not counted)`;
  return [
    `<div class="chapter-facts">`,
    `<p class="chapter-times"><span class="read-time"><strong>Reading:</strong> ${formatMinutes(times.readMinutes)}</span>` +
      ` <span class="build-time"><strong>Building along:</strong> about ${formatMinutes(times.buildMinutes)}</span>` +
      ` <a class="times-how" href="/#how-long">how these are counted</a></p>`,
    `<p class="chapter-code"><strong>The code:</strong>` +
      ` download the repository: ${archiveLinks()}` +
      ` · <a class="browse-link" href="/code/${slug}">browse this chapter's files</a></p>`,
    // In full on a desktop; folded on a phone, where the list would fill the first screen.
    `<p class="chapter-touches touches-wide">${touches}: ${files.join(", ")}</p>`,
    `<details class="chapter-touches touches-narrow"><summary>${touches}</summary>${files.join(", ")}</details>`,
    `</div>`,
  ].join("\n");
}

interface Token {
  type: string;
  tag: string;
  content: string;
}
type TokenConstructor = new (type: string, tag: string, nesting: number) => Token;

export function chapterHeaderPlugin(md: MarkdownRenderer): void {
  md.core.ruler.push("chapter-header", (state) => {
    const env = state.env as { relativePath?: string };
    const slug = env.relativePath === undefined ? undefined : pageChapter(env.relativePath);
    if (slug === undefined) return;
    const tokens = state.tokens as unknown as Token[];
    const title = tokens.findIndex((token) => token.type === "heading_close" && token.tag === "h1");
    if (title === -1) return;
    const Token = state.Token as unknown as TokenConstructor;
    const box = new Token("html_block", "", 0);
    box.content = chapterHeader(slug) + "\n";
    tokens.splice(title + 1, 0, box);
  });
}
