// Exercises with solutions that are real code. Each exercise of chapter NN lives in
// exercises/NN-slug/<id>/:
//
//   solution.diff   the change that solves it, relative to the chapter's folder (src/, test/)
//   check.ts        `export default async function check(chapterDir)`: throws, saying what is
//                   missing, until the chapter in `chapterDir` solves the exercise
//
// test/exercises/exercises.test.ts proves both halves: the check fails on the chapter as it is,
// and passes on a scratch copy with the solution applied. `pnpm exercise N ID` runs the check on
// your own chapter folder; `--solution` runs it on a copy with the solution applied.
import { spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { diffArgs } from "./chapter-diff.ts";
import { type Chapter, listChapters, ROOT } from "./chapters.ts";

export const EXERCISES_DIR = join(ROOT, "exercises");
const SCRATCH_DIR = join(ROOT, "test-results", "exercises");

export interface Exercise {
  chapter: Chapter;
  id: string;
  dir: string;
  solutionPath: string;
  checkPath: string;
}

export function listExercises(): Exercise[] {
  if (!existsSync(EXERCISES_DIR)) return [];
  const chapters = listChapters();
  return readdirSync(EXERCISES_DIR)
    .sort()
    .flatMap((slug) => {
      const chapter = chapters.find((c) => c.slug === slug);
      if (chapter === undefined) throw new Error(`exercises/${slug}: no chapter ${slug}`);
      return readdirSync(join(EXERCISES_DIR, slug))
        .sort()
        .map((id) => {
          const dir = join(EXERCISES_DIR, slug, id);
          return {
            chapter,
            id,
            dir,
            solutionPath: join(dir, "solution.diff"),
            checkPath: join(dir, "check.ts"),
          };
        });
    });
}

export type Check = (chapterDir: string) => Promise<void>;

/** Runs an exercise's check against a chapter folder: resolves when solved, throws why not. */
export async function runCheck(exercise: Exercise, chapterDir: string): Promise<void> {
  const module = (await import(pathToFileURL(exercise.checkPath).href)) as { default: Check };
  await module.default(chapterDir);
}

/**
 * A scratch copy of the exercise's chapter (src, test, package.json; its node_modules linked) in
 * test-results/exercises/, with the solution applied unless `withSolution` is false. `pnpm exercise
 * N ID --scratch` makes the copy without a suffix, the one `--save` reads.
 */
export function scratchCopy(
  exercise: Exercise,
  withSolution = true,
  suffix = withSolution ? "" : "-unsolved",
): string {
  const dir = join(SCRATCH_DIR, `${exercise.chapter.slug}-${exercise.id}${suffix}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const part of ["src", "test", "package.json", "chapter.json"]) {
    const from = join(exercise.chapter.dir, part);
    if (existsSync(from)) cpSync(from, join(dir, part), { recursive: true });
  }
  symlinkSync(join(exercise.chapter.dir, "node_modules"), join(dir, "node_modules"), "dir");
  if (withSolution) applySolution(exercise, dir);
  return dir;
}

/**
 * GNU patch applies the solution; a solution that no longer applies is an error to fix. Rejected
 * hunks are printed, not saved as .rej files, so `--save` never puts them into the solution.
 */
export function applySolution(exercise: Exercise, dir: string): void {
  const result = spawnSync(
    "patch",
    [
      "-p0",
      "--batch",
      "--forward",
      "--no-backup-if-mismatch",
      "--reject-file=-",
      "-d",
      dir,
      "-i",
      exercise.solutionPath,
    ],
    { encoding: "utf8" },
  );
  if (result.status !== 0) {
    throw new Error(
      `${exercise.solutionPath} no longer applies to chapter ${exercise.chapter.slug}:\n${result.stdout}${result.stderr}` +
        `\n${dir} keeps the hunks that still applied: redo the ones above there, check it with ` +
        `pnpm exercise ${exercise.chapter.number} ${exercise.id} --solution after saving it with --save.`,
    );
  }
}

/** The solution as a diff of `scratch` against the chapter, paths relative to the chapter folder. */
export function saveSolution(exercise: Exercise, scratch: string): string {
  const parts = ["src", "test"].map((part) => {
    const result = spawnSync("diff", diffArgs(["-ruN"], part, join(scratch, part)), {
      cwd: exercise.chapter.dir,
      encoding: "utf8",
    });
    if (result.status !== 0 && result.status !== 1) throw new Error(result.stderr);
    return result.stdout
      .replace(/^diff .*\n/gm, "")
      .replace(
        /^(---|\+\+\+) (\S+)\t.*$/gm,
        (_all, side: string, path: string) =>
          `${side} ${path.startsWith(scratch) ? path.slice(scratch.length + 1) : path}`,
      );
  });
  const diff = parts.join("");
  if (diff === "") throw new Error(`${scratch} is the same as the chapter: nothing to save.`);
  writeFileSync(exercise.solutionPath, diff);
  return diff;
}

export function readSolution(exercise: Exercise): string {
  return readFileSync(exercise.solutionPath, "utf8");
}
