// pnpm exercise N ID               checks your chapter N folder: is exercise ID solved?
// pnpm exercise N ID --solution    checks a scratch copy of chapter N with the book's solution
// pnpm exercise N ID --scratch     makes a scratch copy (solution applied, if one exists) to work in
// pnpm exercise N ID --save        saves that scratch copy's changes as the exercise's solution
// pnpm exercise                    lists the exercises
import { existsSync } from "node:fs";
import { relative } from "node:path";
import { ROOT } from "./lib/chapters.ts";
import {
  listExercises,
  runCheck,
  saveSolution,
  scratchCopy,
  type Exercise,
} from "./lib/exercises.ts";
import { userArgs } from "./lib/run-chapter-module.ts";

const [chapterArg, id, mode] = userArgs(process.argv.slice(2));
const exercises = listExercises();
const list = exercises.map((e) => `  pnpm exercise ${e.chapter.number} ${e.id}`).join("\n");
const exercise = exercises.find((e) => e.chapter.number === Number(chapterArg) && e.id === id);
if (exercise === undefined) {
  console.error(
    `${chapterArg === undefined ? "Which exercise?" : `No exercise "${id ?? ""}" in chapter ${chapterArg}.`} The exercises:\n${list}`,
  );
  process.exit(chapterArg === undefined ? 0 : 2);
}

async function check(ex: Exercise, dir: string, label: string): Promise<number> {
  try {
    await runCheck(ex, dir);
    console.log(`solved: ${label} passes exercises/${ex.chapter.slug}/${ex.id}/check.ts`);
    return 0;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    console.log(`not yet: ${label}\n${message}`);
    return 1;
  }
}

/** A scratch copy, or the reason there is none (a solution that no longer applies), without a stack. */
function scratchOrExit(ex: Exercise, withSolution: boolean, suffix?: string): string {
  try {
    return scratchCopy(ex, withSolution, suffix);
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}

if (mode === "--scratch") {
  const dir = scratchOrExit(exercise, existsSync(exercise.solutionPath), "");
  console.log(`a copy to work in: ${relative(ROOT, dir)}`);
} else if (mode === "--save") {
  const diff = saveSolution(
    exercise,
    `${ROOT}/test-results/exercises/${exercise.chapter.slug}-${exercise.id}`,
  );
  console.log(`saved ${relative(ROOT, exercise.solutionPath)} (${diff.split("\n").length} lines)`);
} else if (mode === "--solution") {
  process.exitCode = await check(exercise, scratchOrExit(exercise, true), "the book's solution");
} else {
  process.exitCode = await check(
    exercise,
    exercise.chapter.dir,
    `chapters/${exercise.chapter.slug}`,
  );
}
