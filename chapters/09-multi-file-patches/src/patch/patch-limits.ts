import path from "node:path";
import { diffArrays } from "diff";
import { PatchError } from "./patch-errors.ts";
import type { PatchOperation } from "./patch-types.ts";

function lineCount(text: string): number {
  if (text === "") return 0;
  return text.endsWith("\n") ? text.split("\n").length - 1 : text.split("\n").length;
}

/**
 * How many lines an operation adds or removes, for the per-patch size limit. A Delete
 * counts 0 here: its size is the file's, which only the filesystem side knows.
 */
export function countChangedLines(op: PatchOperation): number {
  switch (op.kind) {
    case "add":
      return lineCount(op.contents);
    case "delete":
      return 0;
    case "update": {
      if (op.wholeFile !== undefined) return lineCount(op.wholeFile);
      let changed = 0;
      for (const hunk of op.hunks) {
        // Context lines appear on both sides; everything else was added or removed.
        for (const change of diffArrays(hunk.oldLines, hunk.newLines)) {
          if (change.added || change.removed) changed += change.count;
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

export function checkPatchLimits(operations: PatchOperation[], limits: PatchLimits): void {
  const files = countFiles(operations);
  if (files > limits.maxFiles) {
    throw new PatchError(
      "too_many_files",
      `The patch touches ${files} files; the limit is ${limits.maxFiles} files per patch.`,
      `Split it into smaller patches of at most ${limits.maxFiles} files each and apply them one after another.`,
    );
  }
  const lines = operations.reduce((sum, op) => sum + countChangedLines(op), 0);
  if (lines > limits.maxChangedLines) {
    throw new PatchError(
      "too_many_changes",
      `The patch changes ${lines} lines; the limit is ${limits.maxChangedLines} changed lines per patch.`,
      `Split it into smaller patches of at most ${limits.maxChangedLines} changed lines each and apply them one after another.`,
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
