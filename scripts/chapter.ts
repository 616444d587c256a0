// pnpm chapter N [-- ARGS]: runs chapter N's entry point (src/main.ts).
// pnpm chapter N -- --demo          runs chapter N's scripted "break it" scenario on chapter N
// pnpm chapter N -- --demo-of M     runs chapter M's scenario on chapter N (N = M-1 shows the failure)
import { join } from "node:path";
import { chapterListText, findChapter, isRunnable, listChapters } from "./lib/chapters.ts";
import { hasScenario, loadScenario } from "./lib/demo-scenario.ts";
import { runDemo } from "./lib/run-demo.ts";
import { runChapterModule, userArgs } from "./lib/run-chapter-module.ts";

const [arg, ...rest] = userArgs(process.argv.slice(2));
const chapters = listChapters();
const chapter = findChapter(chapters, arg);
if (chapter === undefined || !isRunnable(chapter)) {
  const what = arg === undefined ? "which chapter?" : `no runnable chapter "${arg}".`;
  console.error(
    `pnpm chapter: ${what} Usage: pnpm chapter N [-- ARGS | -- --demo | -- --demo-of M]. The chapters:\n${chapterListText(chapters)}`,
  );
  process.exit(2);
}

const args = userArgs(rest);
if (args[0] === "--demo" || args[0] === "--demo-of") {
  const owner = args[0] === "--demo" ? chapter : findChapter(chapters, args[1]);
  const withDemo = chapters.filter((c) => hasScenario(c.slug)).map((c) => c.number);
  if (owner === undefined || !hasScenario(owner.slug)) {
    const which =
      owner === undefined
        ? `"${args[1] ?? ""}" is not a chapter`
        : `chapter ${owner.number} has no scenario`;
    console.error(
      `pnpm chapter: ${which}. Chapters with a scripted demo: ${withDemo.join(", ")}. ` +
        `Usage: pnpm chapter N -- --demo, or pnpm chapter N -- --demo-of M`,
    );
    process.exit(2);
  }
  const before = chapters[chapters.indexOf(owner) - 1];
  if (chapter !== owner && chapter !== before) {
    console.error(
      `pnpm chapter: chapter ${owner.number}'s scenario runs on chapter ${owner.number} (the lesson at work)` +
        (before
          ? ` or on chapter ${before.number} (the failure it prevents): pnpm chapter ${before.number} -- --demo-of ${owner.number}`
          : ""),
    );
    process.exit(2);
  }
  const run = await runDemo(loadScenario(owner.slug), owner, chapter, { keepWorkspace: true });
  process.exit(run.ok ? 0 : 1);
}
await runChapterModule(join(chapter.dir, "src", "main.ts"), args);
