import { color } from "@build-agent/shared/terminal";
import { parsePatch } from "../patch/parse-patch.ts";
import type { ApplyPatchResult } from "../patch/apply-patch.ts";
import type { PatchOperation } from "../patch/patch-types.ts";

/**
 * The coloured diff a person sees after each applied patch: what the model
 * changed, file by file, red for removed lines and green for added ones. It
 * is drawn from the patch itself, limited to the files the result says were
 * really written, so a failed file never looks changed.
 */
export function renderPatchDiff(patchText: string, result: ApplyPatchResult): string {
  let operations: PatchOperation[];
  try {
    operations = parsePatch(patchText).operations;
  } catch {
    return "";
  }
  const written = new Set(result.changed.flatMap((c) => [c.path, c.from ?? c.path]));
  return operations
    .filter((op) => written.has(op.path))
    .map(renderOperation)
    .join("\n");
}

function renderOperation(op: PatchOperation): string {
  switch (op.kind) {
    case "add":
      return [color.bold(`+++ ${op.path} (new file)`), ...lines(op.contents).map(added)].join("\n");
    case "delete":
      return color.bold(color.red(`--- ${op.path} (deleted)`));
    case "update": {
      const title = op.moveTo ? `${op.path} → ${op.moveTo}` : op.path;
      const body =
        op.wholeFile !== undefined
          ? [color.dim("(whole file replaced)"), ...lines(op.wholeFile).map(added)]
          : op.hunks.flatMap((hunk) => [
              color.cyan(`@@ ${hunk.anchors.join(" … ")}`.trimEnd()),
              ...hunkLines(hunk.patchText),
            ]);
      return [color.bold(`*** ${title}`), ...body].join("\n");
    }
  }
}

/** The hunk's own " ", "-" and "+" lines, coloured; anchors are shown in the @@ line. */
function hunkLines(patchText: string): string[] {
  return lines(patchText)
    .filter((line) => !line.startsWith("@@") && !line.startsWith("***"))
    .map((line) =>
      line.startsWith("-")
        ? color.red(line)
        : line.startsWith("+")
          ? color.green(line)
          : color.dim(line),
    );
}

function added(line: string): string {
  return color.green(`+${line}`);
}

function lines(text: string): string[] {
  const all = text.split("\n");
  if (all.at(-1) === "") all.pop();
  return all;
}
