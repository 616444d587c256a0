// The change every engine benchmark applies: a source file of `lines` unique lines, and `hunks`
// one-line edits spread evenly through it, written both as our patch format and as a unified diff
// (for GNU patch, git apply and jsdiff). Same edits, same context (two lines each side), so every
// engine does the same job.
import { writeFileSync } from "node:fs";
import { join } from "node:path";

export interface EngineCase {
  lines: number;
  hunks: number;
  before: string;
  after: string;
  /** Our format: `*** Begin Patch` ... `@@` hunks without line numbers. */
  codex: string;
  /** Unified diff with a/ b/ prefixes, as `git diff` writes it. */
  unified: string;
}

export const FILE_NAME = "big.ts";
const CONTEXT = 2;

export function makeCase(lines: number, hunks: number): EngineCase {
  if (lines < hunks * (2 * CONTEXT + 1))
    throw new Error(`${hunks} hunks do not fit ${lines} lines`);
  const original = Array.from(
    { length: lines },
    (_, i) => `  const value${i} = compute(${i}, "item ${i}");`,
  );
  const changed = [...original];
  const codex: string[] = ["*** Begin Patch", `*** Update File: ${FILE_NAME}`];
  const unified: string[] = [`--- a/${FILE_NAME}`, `+++ b/${FILE_NAME}`];
  for (let h = 0; h < hunks; h++) {
    const at = Math.floor(((h + 0.5) * lines) / hunks);
    changed[at] = `  const value${at} = computeFaster(${at}, "item ${at}");`;
    const above = original.slice(at - CONTEXT, at).map((line) => ` ${line}`);
    const below = original.slice(at + 1, at + 1 + CONTEXT).map((line) => ` ${line}`);
    const edit = [`-${original[at]}`, `+${changed[at]}`];
    codex.push("@@", ...above, ...edit, ...below);
    const start = at - CONTEXT + 1; // unified diffs count lines from 1
    const length = above.length + 1 + below.length;
    unified.push(`@@ -${start},${length} +${start},${length} @@`, ...above, ...edit, ...below);
  }
  codex.push("*** End Patch");
  return {
    lines,
    hunks,
    before: original.join("\n") + "\n",
    after: changed.join("\n") + "\n",
    codex: codex.join("\n") + "\n",
    unified: unified.join("\n") + "\n",
  };
}

/** Writes big.ts, change.patch (ours), change.diff (unified) and after.ts (the result) into `dir`. */
export function writeCase(dir: string, engineCase: EngineCase): void {
  writeFileSync(join(dir, FILE_NAME), engineCase.before);
  writeFileSync(join(dir, "after.ts"), engineCase.after);
  writeFileSync(join(dir, "change.patch"), engineCase.codex);
  writeFileSync(join(dir, "change.diff"), engineCase.unified);
}
