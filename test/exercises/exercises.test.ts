// Every exercise's solution is real code that works: its check fails on the chapter as the book
// leaves it (so the check can fail), and passes on a scratch copy with the solution applied.
// See scripts/lib/exercises.ts; a reader runs the same check with `pnpm exercise N ID`.
import { existsSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { listExercises, runCheck, scratchCopy } from "../../scripts/lib/exercises.ts";

const exercises = listExercises().map(
  (exercise) => [`${exercise.chapter.slug}/${exercise.id}`, exercise] as const,
);

// Not concurrent: several checks capture output by replacing process.stdout.write, and two
// captures that overlap restore each other's writer, so one check sees nothing (a CI flake).
describe("exercise solutions", () => {
  test("there are exercises with solutions", () => {
    expect(exercises.length).toBeGreaterThan(0);
  });

  test.each(exercises)("%s has a solution and a check", (_name, exercise) => {
    expect(existsSync(exercise.solutionPath), exercise.solutionPath).toBe(true);
    expect(existsSync(exercise.checkPath), exercise.checkPath).toBe(true);
  });

  test.each(exercises)("%s: the check fails on the chapter as it is", async (_name, exercise) => {
    await expect(runCheck(exercise, scratchCopy(exercise, false))).rejects.toThrow();
  });

  test.each(exercises)(
    "%s: the check passes with the solution applied",
    async (_name, exercise) => {
      await runCheck(exercise, scratchCopy(exercise, true));
    },
  );
});
