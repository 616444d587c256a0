// Writes docs/generated/NN.diff: what chapter NN's lesson changed in src/ relative to chapter NN-1.
// Generated on every `vitepress build`/`dev` start from the real packages, so the diff on a page
// can never disagree with the code. Chapter 01 has no predecessor: its diff adds every file.
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { CHAPTERS_DIR, DOCS_DIR, type SiteChapter } from "./chapters.ts";

export const GENERATED_DIR = join(DOCS_DIR, "generated");

/** `git diff --no-index` exits 1 when the inputs differ: that is the normal case here. */
function gitDiff(a: string, b: string): string {
  const result = spawnSync(
    "git",
    ["diff", "--no-index", "--no-color", "--no-ext-diff", "--src-prefix=", "--dst-prefix=", a, b],
    { cwd: CHAPTERS_DIR, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
  );
  if (result.status !== 0 && result.status !== 1) {
    throw new Error(`git diff ${a} ${b} failed: ${result.stderr || result.error?.message}`);
  }
  // The "index abc..def" lines carry blob hashes, noise for a reader.
  return result.stdout.replace(/^index [0-9a-f]+\.\.[0-9a-f]+.*\n/gm, "");
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const full = join(dir, name);
      return statSync(full).isDirectory() ? filesUnder(full) : [full];
    });
}

function firstChapterDiff(slug: string): string {
  return filesUnder(join(CHAPTERS_DIR, slug, "src"))
    .map((file) => gitDiff("/dev/null", relative(CHAPTERS_DIR, file)))
    .join("");
}

export function writeChapterDiffs(chapters: SiteChapter[]): void {
  mkdirSync(GENERATED_DIR, { recursive: true });
  chapters.forEach((chapter, i) => {
    const previous = chapters[i - 1];
    const diff =
      previous === undefined
        ? firstChapterDiff(chapter.slug)
        : gitDiff(`${previous.slug}/src`, `${chapter.slug}/src`);
    const name = String(chapter.number).padStart(2, "0");
    writeFileSync(join(GENERATED_DIR, `${name}.diff`), diff || "# no changes in src/\n");
  });
}
