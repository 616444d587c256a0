import { defineConfig, type DefaultTheme } from "vitepress";
import { DOCS_DIR, listSiteChapters, type SiteChapter } from "./chapters.ts";
import { writeChapterDiffs } from "./chapter-diffs.ts";
import { codeImportPlugin } from "./code-import.ts";
import { pageBlocksPlugin } from "./page-blocks.ts";
import { chapterHeaderPlugin } from "./chapter-header.ts";
import { writeCodeArchives } from "./code-archive.ts";
import { codeFragmentsDevPlugin, writeCodeFragments } from "./code-files.ts";
import { diagramPlugin } from "./diagrams.ts";
import { highlightCounts, highlightOnce } from "./highlight-once.ts";

const chapters = listSiteChapters();
// Before any page is rendered: the pages include these files with `<<< @/generated/NN.diff`.
writeChapterDiffs(chapters);

function chapterItem(chapter: SiteChapter): DefaultTheme.SidebarItem {
  return { text: `${chapter.number}. ${chapter.title}`, link: `/chapters/${chapter.slug}` };
}

const written = chapters.filter((chapter) => chapter.hasPage);

/** One sidebar group per part of the book, in chapter order: "Tools" holds chapters 7 and 8. */
function partGroups(list: SiteChapter[]): DefaultTheme.SidebarItem[] {
  const groups: Array<{ text: string; items: DefaultTheme.SidebarItem[] }> = [];
  for (const chapter of list) {
    const last = groups.at(-1);
    if (last?.text === chapter.part) last.items.push(chapterItem(chapter));
    else groups.push({ text: chapter.part, items: [chapterItem(chapter)] });
  }
  return groups;
}

export default defineConfig({
  title: "Build a Coding Agent",
  description:
    "Build a coding agent from scratch in TypeScript: a model client, context, tools, a hash-guarded apply_patch, a run ledger, prompts and the agent loop.",
  lang: "en",
  // docs/README.md is for contributors; outputs/*.md are captures that pages include, not pages.
  srcExclude: ["README.md", "outputs/**"],
  head: [["link", { rel: "icon", type: "image/svg+xml", href: "/favicon.svg" }]],
  // Every page has its outline: at 1280 px and wider in the column beside the text (VitePress's
  // aside), narrower in the "On this page" menu under the top bar. A chapter page is 20,000 px
  // tall and more: without the outline a reader cannot see where they are in it. Code wraps in
  // the narrower column instead of scrolling (custom.css).
  markdown: {
    config: (md) => {
      highlightOnce(md);
      codeImportPlugin(md);
      pageBlocksPlugin(md);
      chapterHeaderPlugin(md);
      diagramPlugin(md);
    },
  },
  // The code, from the site: the repository as an archive, and each chapter's files as fragments
  // for its file browser (/code/NN-slug).
  async buildEnd(siteConfig) {
    const started = performance.now();
    const archives = writeCodeArchives(siteConfig.outDir).length;
    const fragments = await writeCodeFragments(siteConfig);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(`  ${archives} code archives and ${fragments} highlighted files in ${seconds} s`);
    const { asked, distinct } = highlightCounts();
    console.log(`  ${distinct} distinct code blocks highlighted for ${asked} asked`);
  },
  // A chapter page carries its whole diff, so its chunk is large by design; no warning for that.
  vite: {
    build: { chunkSizeWarningLimit: 2000 },
    plugins: [codeFragmentsDevPlugin(DOCS_DIR)],
  },
  themeConfig: {
    logo: "/favicon.svg",
    search: { provider: "local" },
    nav: [
      { text: "Chapters", link: written[0] ? `/chapters/${written[0].slug}` : "/" },
      { text: "Reference", link: "/reference/apply-patch" },
    ],
    sidebar: [
      {
        text: "Start",
        items: [
          { text: "What you will build", link: "/" },
          { text: "How to read this book", link: "/reference/how-to-read" },
        ],
      },
      ...partGroups(written),
      {
        text: "Reference",
        items: [
          { text: "The apply_patch format", link: "/reference/apply-patch" },
          { text: "Configuration", link: "/reference/configuration" },
          { text: "Ledger and note formats", link: "/reference/ledger-and-notes" },
          { text: "Benchmarks", link: "/reference/bench" },
        ],
      },
    ],
    outline: { level: [2, 3] },
    docFooter: { prev: "Previous", next: "Next" },
  },
});
