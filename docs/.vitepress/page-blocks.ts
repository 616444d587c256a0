// The chapter pages' own Markdown: placed snippets (::: change), the not-shown list (::: not-shown),
// exercise solutions (::: solution) and captured runs ({transcript}). See placed-snippets.ts,
// exercise-solutions.ts and transcript.ts.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { MarkdownRenderer } from "vitepress";
import { expandSolutions } from "./exercise-solutions.ts";
import { expandBlocks, MARKS, pageChapter } from "./placed-snippets.ts";
import { markLines } from "./snippets/marked-lines.ts";
import { renderTranscript } from "./transcript.ts";
import { ROOT } from "./chapters.ts";

type FenceRule = NonNullable<MarkdownRenderer["renderer"]["rules"]["fence"]>;
interface FenceToken {
  info: string;
  content: string;
  src?: [string, string | undefined];
}

function numbers(list: string | undefined): number[] {
  return list ? list.split(".").map(Number) : [];
}

const ROOT_PACKAGE = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  repository?: string | { url?: string };
};

/** The repository's web address from package.json's "repository", when it has one. */
function repositoryUrl(): string | undefined {
  const repository = ROOT_PACKAGE.repository;
  const url = typeof repository === "string" ? repository : repository?.url;
  return url?.replace(/^git\+/, "").replace(/\.git$/, "");
}

/** The line under a chapter page's title: where its code is, how to run it and see its lesson. */
export function chapterSourceLine(slug: string): string {
  const number = Number(slug.slice(0, 2));
  const folder = `<code>chapters/${slug}/</code>`;
  const url = repositoryUrl();
  const where = url ? `<a href="${url}/tree/main/chapters/${slug}">${folder}</a>` : folder;
  const lesson = number > 1 ? ` · its lesson: <code>pnpm diff ${number - 1} ${number}</code>` : "";
  return (
    `<p class="chapter-source">The code: ${where} in <a href="/#get-the-code">the repository</a>` +
    ` · run it: <code>pnpm chapter ${number}</code>${lesson}</p>`
  );
}

/** A chapter page's Markdown with the folder line after its title. */
function withSourceLine(slug: string, markdown: string): string {
  return markdown.replace(/^# .+$/m, (title) => `${title}\n\n${chapterSourceLine(slug)}\n`);
}

export function pageBlocksPlugin(md: MarkdownRenderer): void {
  // Before anything else parses the page: the blocks become ordinary Markdown and HTML.
  md.core.ruler.before("normalize", "chapter-page-blocks", (state) => {
    const env = state.env as { relativePath?: string };
    const slug = env.relativePath === undefined ? undefined : pageChapter(env.relativePath);
    if (slug === undefined) return;
    state.src = withSourceLine(slug, expandSolutions(slug, expandBlocks(slug, state.src)));
  });

  const fence = md.renderer.rules.fence as FenceRule;
  md.renderer.rules.fence = (tokens, idx, options, env, self) => {
    const token = tokens[idx] as unknown as FenceToken;
    if (/^transcript\b/.test(token.info)) {
      const text = token.src ? readFileSync(token.src[0], "utf8") : token.content;
      return renderTranscript(text);
    }
    const at = token.info.indexOf(` ${MARKS}`);
    if (at === -1) return fence(tokens, idx, options, env, self);
    const [added, removed, folded] = token.info.slice(at + MARKS.length + 1).split("|");
    token.info = token.info.slice(0, at);
    const html = fence(tokens, idx, options, env, self);
    const diff = numbers(added).length + numbers(removed).length > 0;
    return markLines(html, [
      [numbers(added), "diff add"],
      [numbers(removed), "diff remove"],
      [numbers(folded), "change-fold"],
    ]).replace('<pre class="', diff ? '<pre class="has-diff ' : '<pre class="');
  };
}
