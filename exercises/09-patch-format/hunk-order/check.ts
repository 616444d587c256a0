// Exercise "Hunks out of order": when a hunk is not found after the previous one but is in the
// file above it, context_not_found says where it is and that hunks must be in file order.
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

interface Hunk {
  anchors: string[];
  oldLines: string[];
  newLines: string[];
}

interface Parser {
  parsePatch(text: string): { operations: Array<{ kind: string; hunks?: Hunk[] }> };
}

interface Hunks {
  applyHunks(fileText: string, hunks: readonly Hunk[], path: string): { text: string };
}

interface PatchErrorLike {
  code: string;
  message: string;
  hint: string;
}

function hunksOf(parser: Parser, ...lines: string[]): Hunk[] {
  const text = ["*** Begin Patch", "*** Update File: f.txt", ...lines, "*** End Patch", ""];
  return parser.parsePatch(text.join("\n")).operations[0]?.hunks ?? [];
}

function refusal(action: () => unknown): PatchErrorLike {
  try {
    action();
  } catch (error) {
    return error as PatchErrorLike;
  }
  throw new assert.AssertionError({ message: "expected the hunks to be refused" });
}

export default async function check(chapterDir: string): Promise<void> {
  const parser = (await import(
    pathToFileURL(join(chapterDir, "src/patch/parse-patch.ts")).href
  )) as Parser;
  const engine = (await import(
    pathToFileURL(join(chapterDir, "src/patch/apply-hunks.ts")).href
  )) as Hunks;
  const file = "one\ntwo\nthree\nfour\n";

  // The second hunk's lines are at line 1, above the first hunk's change (line 3).
  const swapped = hunksOf(parser, "@@", "-three", "+THREE", "@@", "-one", "+ONE");
  const error = refusal(() => engine.applyHunks(file, swapped, "f.txt"));
  assert.equal(error.code, "context_not_found", `the code stays context_not_found: ${error.code}`);
  assert.match(
    error.message + error.hint,
    /line 1\b/,
    `the refusal should say the lines are at line 1; it says:\n${error.message}\n${error.hint}`,
  );
  assert.match(
    error.message + error.hint,
    /order/i,
    "the refusal should say to put the hunks in file order",
  );

  // Lines that are nowhere in the file keep the usual refusal: no 'order' advice.
  const missing = refusal(() =>
    engine.applyHunks(file, hunksOf(parser, "@@", "-two", "+TWO", "@@", "-five", "+FIVE"), "f.txt"),
  );
  assert.equal(missing.code, "context_not_found");
  assert.doesNotMatch(
    missing.message,
    /above|before hunk|order/i,
    `lines that are not in the file at all are not an ordering problem:\n${missing.message}`,
  );

  // In order, the same two hunks apply.
  const inOrder = hunksOf(parser, "@@", "-one", "+ONE", "@@", "-three", "+THREE");
  assert.equal(engine.applyHunks(file, inOrder, "f.txt").text, "ONE\ntwo\nTHREE\nfour\n");
}
