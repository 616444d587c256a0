// pnpm diff A B: what chapter B changed relative to chapter A (sources, tests, dependencies).
import { spawnSync } from "node:child_process";
import { relative } from "node:path";
import { diffArgs } from "./lib/chapter-diff.ts";
import { ROOT, chapterListText, findChapter, listChapters } from "./lib/chapters.ts";
import { userArgs } from "./lib/run-chapter-module.ts";

const args = userArgs(process.argv.slice(2));
const chapters = listChapters();
const [a, b] = [findChapter(chapters, args[0]), findChapter(chapters, args[1])];
if (args.length !== 2 || a === undefined || b === undefined) {
  const bad = args.find((arg) => findChapter(chapters, arg) === undefined);
  const what = bad === undefined ? "needs two chapters." : `no chapter "${bad}".`;
  console.error(
    `pnpm diff: ${what} Usage: pnpm diff A B (e.g. pnpm diff 3 4). The chapters:\n${chapterListText(chapters)}`,
  );
  process.exit(2);
}
const color = process.stdout.isTTY && !process.env.NO_COLOR ? "always" : "never";
const result = spawnSync(
  "diff",
  diffArgs(["-ruN"], relative(ROOT, a.dir), relative(ROOT, b.dir), color),
  {
    cwd: ROOT,
    stdio: "inherit",
  },
);
// diff exits 1 when the trees differ: that is the normal, successful case here.
process.exit(result.status === 2 ? 2 : 0);
