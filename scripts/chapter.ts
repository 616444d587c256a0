// pnpm chapter N [-- ARGS]: runs chapter N's entry point (src/main.ts).
import { join } from "node:path";
import { chapterListText, findChapter, isRunnable, listChapters } from "./lib/chapters.ts";
import { runChapterModule, userArgs } from "./lib/run-chapter-module.ts";

const [arg, ...rest] = userArgs(process.argv.slice(2));
const chapters = listChapters();
const chapter = findChapter(chapters, arg);
if (chapter === undefined || !isRunnable(chapter)) {
  const what = arg === undefined ? "which chapter?" : `no runnable chapter "${arg}".`;
  console.error(
    `pnpm chapter: ${what} Usage: pnpm chapter N [-- ARGS]. The chapters:\n${chapterListText(chapters)}`,
  );
  process.exit(2);
}
await runChapterModule(join(chapter.dir, "src", "main.ts"), userArgs(rest));
