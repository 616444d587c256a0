// Build-time data for the home page's chapter list (a VitePress data loader): every chapter in
// chapters/*/chapter.json, with the one-line `description` from its page's front matter.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DOCS_DIR, listSiteChapters, type SiteChapter } from "./.vitepress/chapters.ts";
import { chapterTimes, type PageTimes } from "./.vitepress/page-facts.ts";

export interface ChapterSummary extends SiteChapter {
  description: string;
  /** How long its page takes to read and to build along (page-facts.ts); none without a page. */
  times?: PageTimes;
}

declare const data: ChapterSummary[];
export { data };

function pageDescription(slug: string): string {
  const page = readFileSync(join(DOCS_DIR, "chapters", `${slug}.md`), "utf8");
  const frontMatter = /^---\n([\s\S]*?)\n---/.exec(page)?.[1] ?? "";
  return /^description:\s*(.*)$/m.exec(frontMatter)?.[1]?.replace(/^["']|["']$/g, "") ?? "";
}

export default {
  watch: ["../chapters/*/chapter.json", "./chapters/*.md", "./outputs/**"],
  load(): ChapterSummary[] {
    return listSiteChapters().map((chapter) => ({
      ...chapter,
      description: chapter.hasPage ? pageDescription(chapter.slug) : "",
      ...(chapter.hasPage ? { times: chapterTimes(chapter.slug) } : {}),
    }));
  },
};
