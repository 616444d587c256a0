// pnpm diff A B [PATH...]: what chapter B changed relative to chapter A, read like `git diff`:
// a summary of the changed files first, then the hunks, with plain `diff`/`---`/`+++` headers.
// On a terminal it is coloured and shown in a pager ($PAGER, or less); piped, it is plain text.
// PATH (e.g. src/patch) limits it to a file or folder of the chapters.
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join, relative } from "node:path";
import { cleanDiff, diffArgs, diffStat } from "./lib/chapter-diff.ts";
import { ROOT, chapterListText, findChapter, listChapters } from "./lib/chapters.ts";
import { userArgs } from "./lib/run-chapter-module.ts";

const USAGE = "Usage: pnpm diff A B [PATH...] (e.g. pnpm diff 9 10, or pnpm diff 9 10 src/patch)";

const [first, second, ...paths] = userArgs(process.argv.slice(2));
const chapters = listChapters();
const [a, b] = [findChapter(chapters, first), findChapter(chapters, second)];
if (a === undefined || b === undefined) {
  const bad = [first, second].find((arg) => arg !== undefined && !findChapter(chapters, arg));
  const what = bad === undefined ? "needs two chapters." : `no chapter "${bad}".`;
  console.error(`pnpm diff: ${what} ${USAGE}. The chapters:\n${chapterListText(chapters)}`);
  process.exit(2);
}
const missing = paths.find((p) => !existsSync(join(a.dir, p)) && !existsSync(join(b.dir, p)));
if (missing !== undefined) {
  console.error(
    `pnpm diff: no file or folder "${missing}" in chapter ${a.number} or ${b.number}. ${USAGE}.`,
  );
  process.exit(2);
}

const diff = (paths.length > 0 ? paths : [""])
  .map((path) =>
    cleanDiff(gnuDiff(join(relative(ROOT, a.dir), path), join(relative(ROOT, b.dir), path))),
  )
  .join("");
const text = diff === "" ? "no changes\n" : `${diffStat(diff)}\n${diff}`;
if (process.stdout.isTTY && !process.env.NO_COLOR) page(colour(text));
else process.stdout.write(text);

/** GNU diff from the repository root; it exits 1 when the trees differ, the normal case. */
function gnuDiff(from: string, to: string): string {
  const result = spawnSync("diff", diffArgs(["-ruN"], from, to), {
    cwd: ROOT,
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
  });
  if (result.status !== 0 && result.status !== 1) {
    console.error(`pnpm diff: diff failed: ${result.stderr || result.error?.message}`);
    process.exit(2);
  }
  // Two files (a PATH naming one) get no "diff" line from diff itself; the stat needs it.
  const header = `diff -ruN ${from} ${to}\n`;
  return result.stdout === "" || result.stdout.startsWith("diff ")
    ? result.stdout
    : header + result.stdout;
}

/** git's colours: bold headers, cyan hunk lines, red removals, green additions. */
function colour(text: string): string {
  const paint = (code: string, line: string) => `\x1b[${code}m${line}\x1b[0m`;
  let inDiff = false;
  return text
    .split("\n")
    .map((line) => {
      if (line.startsWith("diff ")) inDiff = true;
      if (!inDiff)
        return line.startsWith("A ")
          ? paint("32", line)
          : line.startsWith("D ")
            ? paint("31", line)
            : line;
      if (/^(diff |--- |\+\+\+ )/.test(line)) return paint("1", line);
      if (line.startsWith("@@")) return paint("36", line);
      if (line.startsWith("+")) return paint("32", line);
      if (line.startsWith("-")) return paint("31", line);
      return line;
    })
    .join("\n");
}

/** Shows the text in the pager, as git does; prints it when there is no pager to run. */
function page(text: string): void {
  const pager = process.env.PAGER || "less";
  // F: quit when it fits one screen; R: keep the colours; X: leave the text on the screen.
  const child = spawn(pager, [], {
    stdio: ["pipe", "inherit", "inherit"],
    shell: true,
    env: { LESS: "FRX", ...process.env },
  });
  // No such pager (the shell answers 127): print instead.
  child.on("exit", (code) => {
    if (code === 127) process.stdout.write(text);
  });
  child.stdin.on("error", () => {}); // the reader quit the pager before the end: fine
  child.stdin.end(text);
}
