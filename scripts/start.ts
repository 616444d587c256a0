// pnpm start [-- ARGS]: the newest chapter that exists, i.e. the most complete agent.
import { join } from "node:path";
import { isRunnable, listChapters } from "./lib/chapters.ts";
import { runChapterModule, userArgs } from "./lib/run-chapter-module.ts";

const newest = listChapters().filter(isRunnable).at(-1);
if (newest === undefined) {
  console.error("pnpm start: no chapter has a src/main.ts yet.");
  process.exit(1);
}
await runChapterModule(join(newest.dir, "src", "main.ts"), userArgs(process.argv.slice(2)));
