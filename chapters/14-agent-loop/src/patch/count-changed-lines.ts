import { diffArrays } from "diff";
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
