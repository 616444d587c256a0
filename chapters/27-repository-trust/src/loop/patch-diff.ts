import { color } from "@build-agent/shared/terminal";
import { structuredPatch } from "diff";
import type { ApplyPatchResult, PlannedFile } from "../patch/apply-patch.ts";
import { lineCount } from "../patch/patch-limits.ts";
import { visible } from "../terminal/visible-text.ts";

/**
 * The most added plus removed lines a shown diff may have. Finding a diff costs time that grows
 * with the size of the change times the size of the files, and a change this big cannot be read
 * on a terminal anyway: past it, the file gets a one-line summary instead.
 */
export const MAX_SHOWN_EDITS = 2_000;

/**
 * The coloured diff a person sees after each applied patch: what was really
 * written, file by file, computed from each file's text before and after (so
 * a hunk matched loosely shows the file's lines, not the model's), red for
 * removed lines and green for added ones. Only files the result lists as
 * written appear, so a failed file never looks changed.
 */
export function renderPatchDiff(files: readonly PlannedFile[], result: ApplyPatchResult): string {
  const staged = new Map(files.map((file) => [file.path, file]));
  const shown = new Set<string>();
  return result.changed
    .filter((change) => !shown.has(change.path) && shown.add(change.path))
    .map((change) => {
      const before = staged.get(change.from ?? change.path)?.before;
      const after = staged.get(change.path)?.after;
      if (change.op === "delete")
        return color.bold(color.red(`--- ${visible(change.path)} (deleted)`));
      // Paths and lines are the model's and the workspace's text: written out, then coloured.
      const title = visible(
        change.op === "add"
          ? `+++ ${change.path} (new file)`
          : change.from !== undefined
            ? `*** ${change.from} → ${change.path}`
            : `*** ${change.path}`,
      );
      const patch = structuredPatch("", "", before ?? "", after ?? "", "", "", {
        context: 3,
        maxEditLength: MAX_SHOWN_EDITS,
      });
      if (patch === undefined) {
        const summary = `${lineCount(before ?? "")} lines before, ${lineCount(after ?? "")} after: too many changes to show as a diff`;
        return [color.bold(title), color.dim(summary)].join("\n");
      }
      const body = patch.hunks.flatMap((hunk) => [
        color.cyan(`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`),
        ...hunk.lines
          .map((l) => visible(l, { lines: true }))
          .map((line) =>
            line.startsWith("-")
              ? color.red(line)
              : line.startsWith("+")
                ? color.green(line)
                : color.dim(line),
          ),
      ]);
      return [color.bold(title), ...body].join("\n");
    })
    .join("\n");
}
