import path from "node:path";
import { PatchError } from "./patch-errors.ts";
import type { PatchOperation } from "./patch-types.ts";

export function lineCount(text: string): number {
  if (text === "") return 0;
  return text.endsWith("\n") ? text.split("\n").length - 1 : text.split("\n").length;
}

/**
 * How many lines an operation adds or removes, for the per-patch size limit: counted in one pass
 * over the patch, because a diff to find them costs time quadratic in a big hunk, and a
 * refusal must be cheap. A Delete counts 0 here: its size is the file's, which only the
 * filesystem side knows.
 *
 * A whole-file replacement removes every line the file had, so it counts them all, plus its new
 * ones: `replacedText` gives the file's text once it has been read. Before that, only its new
 * lines count.
 */
export function countChangedLines(
  op: PatchOperation,
  replacedText?: (op: PatchOperation) => string | undefined,
): number {
  switch (op.kind) {
    case "add":
      return lineCount(op.contents);
    case "delete":
      return 0;
    case "update": {
      if (op.wholeFile !== undefined) {
        return lineCount(replacedText?.(op) ?? "") + lineCount(op.wholeFile);
      }
      // The hunk's lines as the patch wrote them: '+' added, '-' removed, ' ' context.
      let changed = 0;
      for (const hunk of op.hunks) {
        for (const line of hunk.patchText.split("\n")) {
          if (line.startsWith("+") || line.startsWith("-")) changed++;
        }
      }
      return changed;
    }
  }
}

/**
 * Size limits per patch. A huge patch is hard to review and, when one hunk
 * fails, hard for the model to repair; small patches fail small. The whole
 * patch is refused before any file is touched.
 */
export interface PatchLimits {
  maxFiles: number;
  maxChangedLines: number;
}

export const DEFAULT_PATCH_LIMITS: PatchLimits = { maxFiles: 10, maxChangedLines: 800 };

/**
 * Refuses a patch over a limit. It runs twice: on the patch alone, before any file is read, and
 * again with `replacedText` once the files are read, for the lines whole-file replacements remove.
 */
export function checkPatchLimits(
  operations: PatchOperation[],
  limits: PatchLimits,
  replacedText?: (op: PatchOperation) => string | undefined,
): void {
  const files = countFiles(operations);
  if (files > limits.maxFiles) {
    throw new PatchError(
      "too_many_files",
      `The patch touches ${files} files; the limit is ${limits.maxFiles} files per patch.`,
      `Split it into smaller patches of at most ${limits.maxFiles} files each and apply them one after another.`,
    );
  }
  const lines = operations.reduce((sum, op) => sum + countChangedLines(op, replacedText), 0);
  if (lines > limits.maxChangedLines) {
    const split = `Split it into smaller patches of at most ${limits.maxChangedLines} changed lines each and apply them one after another.`;
    const wholeFile = operations.some((op) => op.kind === "update" && op.wholeFile !== undefined);
    throw new PatchError(
      "too_many_changes",
      `The patch changes ${lines} lines; the limit is ${limits.maxChangedLines} changed lines per patch.`,
      wholeFile
        ? `An Update File section without hunk lines replaces the whole file and counts every old and new line: write '@@' hunks of only the lines that change. ${split}`
        : split,
    );
  }
}

/** A move touches two files: the one it empties and the one it fills. */
function countFiles(operations: PatchOperation[]): number {
  const paths = new Set<string>();
  for (const op of operations) {
    paths.add(path.posix.normalize(op.path));
    if (op.kind === "update" && op.moveTo !== undefined) paths.add(path.posix.normalize(op.moveTo));
  }
  return paths.size;
}
