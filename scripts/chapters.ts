// Keeps the chapter snapshots honest.
//
//   pnpm chapters:check   fails when a chapter differs from the previous one outside its lesson,
//                         or when its src/ changes more lines than one lesson should (700)
//   pnpm chapters:sync    carries every non-lesson file forward from chapter N-1 to N, in order
//   pnpm chapters:sync -- src/x.ts test/y.ts
//                         the same, for those chapter-relative paths only (so two people fixing
//                         different files do not carry each other's unfinished work forward)
//
// Each chapter's chapter.json lists the files its lesson adds, changes or deletes. Everything else
// must be byte-identical to the previous chapter. A fix made in chapter 2 reaches every later chapter by
// one `pnpm chapters:sync`: files a later chapter does not change are copied, and files it does
// change get a three-way merge (git merge-file) of the fix into that chapter's version.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { lessonSize, MAX_LESSON_LINES } from "./lib/chapter-diff.ts";
import {
  ROOT,
  isLessonPath,
  listChapters,
  readIfExists,
  sameBytes,
  snapshotFiles,
  type Chapter,
} from "./lib/chapters.ts";

function rel(chapter: Chapter, file: string): string {
  return relative(ROOT, join(chapter.dir, file));
}

/** The committed bytes of a file, the base of a three-way merge. */
function committed(chapter: Chapter, file: string): Buffer | undefined {
  try {
    return execFileSync("git", ["show", `HEAD:${rel(chapter, file)}`], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "ignore"],
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch {
    return undefined;
  }
}

/** True when these bytes are some committed version of the file: overwriting them loses nothing. */
function inHistory(bytes: Buffer, chapter: Chapter, file: string): boolean {
  const blob = execFileSync("git", ["hash-object", "--stdin"], { cwd: ROOT, input: bytes })
    .toString()
    .trim();
  const log = execFileSync(
    "git",
    ["log", "--all", "--no-abbrev", "--format=", "--raw", "--", rel(chapter, file)],
    { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 },
  ).toString();
  return log.split("\n").some((line) => line.split(" ")[3] === blob);
}

/** Each chapter with the one before it, when that one is its number minus one. */
function pairs(): Array<[Chapter, Chapter]> {
  const chapters = listChapters();
  return chapters
    .slice(1)
    .map((c, i): [Chapter, Chapter] => [chapters[i]!, c])
    .filter(([prev, next]) => next.number === prev.number + 1);
}

const SKIPPED = "(check and sync skip the pair)";

/**
 * Where the numbering skips (while a re-cut writes chapters 4 and 5, 03-tools is followed by
 * 06-context-budget). Comparing across the gap would report the missing chapters' lessons as
 * drift, and syncing across it would carry chapter 3 into chapter 6: neither runs there.
 */
function gaps(): string[] {
  const chapters = listChapters();
  const first = chapters[0];
  const missing: string[] = [];
  if (first !== undefined && first.number !== 1) {
    missing.push(`the book starts at ${first.slug}: there is no chapter 1`);
  }
  for (const [i, next] of chapters.slice(1).entries()) {
    const prev = chapters[i]!;
    if (next.number === prev.number) {
      missing.push(`${prev.slug} and ${next.slug} have the same number ${SKIPPED}`);
    } else if (next.number !== prev.number + 1) {
      const [from, to] = [prev.number + 1, next.number - 1];
      const numbers =
        from === to
          ? `chapter ${from} is missing`
          : `chapters ${from} ${to === from + 1 ? "and" : "to"} ${to} are missing`;
      missing.push(`${numbers}: ${prev.slug} is followed by ${next.slug} ${SKIPPED}`);
    }
  }
  return missing;
}

function check(): number {
  const problems: string[] = gaps();
  for (const [prev, next] of pairs()) {
    const files = new Set([...snapshotFiles(prev), ...snapshotFiles(next)]);
    for (const file of [...files].sort()) {
      const same = sameBytes(
        readIfExists(join(prev.dir, file)),
        readIfExists(join(next.dir, file)),
      );
      const lesson = isLessonPath(next, file);
      if (!same && !lesson) {
        problems.push(
          `${rel(next, file)} differs from ${rel(prev, file)} but is not part of chapter ${next.number}'s lesson.\n` +
            `    If chapter ${prev.number} was fixed: run \`pnpm chapters:sync\`. If chapter ${next.number} means to change it: add "${file}" to ${next.slug}/chapter.json "lesson".`,
        );
      }
      if (same && lesson && !file.endsWith("/")) {
        problems.push(
          `${rel(next, file)} is listed in chapter ${next.number}'s lesson but is identical to chapter ${prev.number}'s: remove "${file}" from ${next.slug}/chapter.json "lesson".`,
        );
      }
    }
    for (const entry of next.lesson) {
      const matches = [...files].some((f) =>
        entry.endsWith("/") ? f.startsWith(entry) : f === entry,
      );
      if (!matches) {
        problems.push(
          `${next.slug}/chapter.json lists "${entry}", which exists in neither chapter ${prev.number} nor ${next.number}.`,
        );
      }
    }
  }
  const sizes: string[] = [];
  for (const [prev, next] of pairs()) {
    // Deleted files count once (see lessonSize); the plain count is shown beside it.
    const { lines: size, raw } = lessonSize(prev.dir, next.dir);
    sizes.push(
      `${prev.number}→${next.number} ${size}${raw === size ? "" : ` (${raw} counting deleted files' lines)`}`,
    );
    if (size > MAX_LESSON_LINES) {
      problems.push(
        `chapter ${next.number}'s src changes ${size} lines against chapter ${prev.number}'s, over the ${MAX_LESSON_LINES} of one lesson: split it (see \`pnpm diff ${prev.number} ${next.number}\`).`,
      );
    }
  }
  console.log(`changed src lines per chapter: ${sizes.join(", ")}`);
  if (problems.length > 0) {
    console.error(
      `chapters:check found ${problems.length} problem(s):\n- ${problems.join("\n- ")}`,
    );
    return 1;
  }
  console.log(`chapters:check: ${pairs().length} chapter pairs differ only by their lessons.`);
  return 0;
}

/** Three-way merge of a fix (base → theirs) into a chapter's own version (ours). */
function merge(ours: Buffer, base: Buffer, theirs: Buffer): { text: Buffer; clean: boolean } {
  const dir = mkdtempSync(join(tmpdir(), "chapters-sync-"));
  try {
    const [o, b, t] = ["ours", "base", "theirs"].map((n) => join(dir, n)) as [
      string,
      string,
      string,
    ];
    writeFileSync(o, ours);
    writeFileSync(b, base);
    writeFileSync(t, theirs);
    const result = spawnSync("git", [
      "merge-file",
      "-p",
      "-L",
      "this chapter",
      "-L",
      "before",
      "-L",
      "previous chapter",
      o,
      b,
      t,
    ]);
    return { text: result.stdout, clean: result.status === 0 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function write(path: string, bytes: Buffer | undefined): void {
  if (bytes === undefined) {
    rmSync(path, { force: true });
    return;
  }
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, bytes);
}

function sync(only: readonly string[]): number {
  const report: string[] = [];
  const conflicts: string[] = [];
  const wanted = (file: string) => only.length === 0 || only.includes(file);
  // In order, so a fix in chapter 2 travels through 3, 4, ... in one run.
  for (const [prev, next] of pairs()) {
    const files = new Set([...snapshotFiles(prev), ...snapshotFiles(next)]);
    for (const file of [...files].filter(wanted).sort()) {
      const theirs = readIfExists(join(prev.dir, file));
      const ours = readIfExists(join(next.dir, file));
      if (sameBytes(theirs, ours)) continue;
      const base = committed(prev, file);
      if (!isLessonPath(next, file)) {
        // Only overwrite what was in step before, or what git holds: never lose uncommitted work a
        // chapter has not declared in its lesson yet.
        if (
          ours === undefined ||
          sameBytes(ours, base) ||
          sameBytes(ours, committed(next, file)) ||
          inHistory(ours, prev, file)
        ) {
          write(join(next.dir, file), theirs);
          report.push(`${theirs === undefined ? "deleted" : "copied "} ${rel(next, file)}`);
        } else {
          conflicts.push(
            `${rel(next, file)} has changes of its own but is not in chapter ${next.number}'s lesson: add it to the lesson or undo the changes, then sync again.`,
          );
        }
        continue;
      }
      // A lesson file: carry the previous chapter's uncommitted fix into it by a three-way merge.
      if (
        base === undefined ||
        theirs === undefined ||
        ours === undefined ||
        sameBytes(base, theirs)
      )
        continue;
      // Only a clean merge is written: conflict markers in someone's lesson file would be easy to commit
      // by accident, so a conflict leaves the file as it is and says how to carry the fix by hand.
      const merged = merge(ours, base, theirs);
      if (merged.clean) {
        write(join(next.dir, file), merged.text);
        report.push(`merged  ${rel(next, file)}`);
      } else {
        conflicts.push(
          `${rel(next, file)} was left as it is: the fix to ${rel(prev, file)} conflicts with chapter ${next.number}'s lesson. See the fix with \`git diff -- ${rel(prev, file)}\` and apply it by hand.`,
        );
      }
    }
  }
  for (const line of report) console.log(line);
  for (const gap of gaps()) console.log(gap);
  if (conflicts.length > 0) {
    console.error(`chapters:sync needs you:\n- ${conflicts.join("\n- ")}`);
    return 1;
  }
  console.log(
    report.length === 0
      ? "chapters:sync: already in step."
      : `chapters:sync: ${report.length} file(s) updated.`,
  );
  return 0;
}

const command = process.argv[2];
if (command === "check") process.exitCode = check();
else if (command === "sync")
  process.exitCode = sync(process.argv.slice(3).filter((a) => a !== "--"));
else {
  console.error("usage: tsx scripts/chapters.ts check | sync [chapter-relative paths]");
  process.exitCode = 2;
}
