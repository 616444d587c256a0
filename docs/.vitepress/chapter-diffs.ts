// Writes docs/generated/NN.diff: what chapter NN's lesson changed in src/ relative to chapter NN-1,
// and NN.stat: one line per file of it (A added, M modified, D deleted, with line counts), the
// overview a page shows above the full diff. Generated on every `vitepress build`/`dev` start from
// the real packages, so a page can never disagree with the code. Chapter 01 has no predecessor:
// its diff adds every file.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
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
  const src = join(CHAPTERS_DIR, slug, "src");
  if (!existsSync(src)) return "";
  return filesUnder(src)
    .map((file) => gitDiff("/dev/null", relative(CHAPTERS_DIR, file)))
    .join("");
}

/** The per-file summary of a `git diff` text. */
export function diffStat(diff: string): string {
  const files: Array<{ kind: string; path: string; added: number; removed: number }> = [];
  for (const line of diff.split("\n")) {
    const header = /^diff --git (\S+) (\S+)$/.exec(line);
    const current = files.at(-1);
    if (header) {
      // Show paths inside the chapter: "04-apply-patch/src/main.ts" -> "src/main.ts".
      const path = (header[2] === "/dev/null" ? header[1]! : header[2]!).replace(/^[^/]+\//, "");
      files.push({ kind: "M", path, added: 0, removed: 0 });
    } else if (current === undefined) {
      continue;
    } else if (line.startsWith("new file mode")) current.kind = "A";
    else if (line.startsWith("deleted file mode")) current.kind = "D";
    else if (line.startsWith("+") && !line.startsWith("+++ ")) current.added++;
    else if (line.startsWith("-") && !line.startsWith("--- ")) current.removed++;
  }
  const width = Math.max(0, ...files.map((file) => file.path.length));
  const lines = files.map(({ kind, path, added, removed }) =>
    `${kind} ${path.padEnd(width)}  ${added > 0 ? `+${added}` : ""}${added > 0 && removed > 0 ? " " : ""}${removed > 0 ? `-${removed}` : ""}`.trimEnd(),
  );
  const added = files.reduce((sum, file) => sum + file.added, 0);
  const removed = files.reduce((sum, file) => sum + file.removed, 0);
  const count = files.length === 1 ? "1 file" : `${files.length} files`;
  return [...lines, `${count} changed, ${added} lines added, ${removed} removed`].join("\n") + "\n";
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
    writeFileSync(join(GENERATED_DIR, `${name}.stat`), diffStat(diff));
  });
}
