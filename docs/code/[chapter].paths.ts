// One page per chapter, /code/NN-slug: the chapter's src/ as a file tree (docs/.vitepress/code-files.ts).
import { chapterFiles } from "../.vitepress/code-files.ts";
import { listSiteChapters } from "../.vitepress/chapters.ts";

export default {
  paths() {
    return listSiteChapters().map((chapter) => ({
      params: {
        chapter: chapter.slug,
        number: chapter.number,
        title: chapter.title,
        files: chapterFiles(chapter.slug),
      },
      content:
        `# Chapter ${chapter.number}'s files: ${chapter.title}\n\n` +
        `The whole of \`chapters/${chapter.slug}/src/\`, as the chapter leaves it. ` +
        `Lines marked **+** are the ones this chapter added or changed; ` +
        `[its page](/chapters/${chapter.slug}) explains them.\n\n<ChapterFiles />\n`,
    }));
  },
};
