// Exercise "Indent added lines as the file does": when a hunk matched with its indentation off,
// its '+' lines are shifted by the same difference, so they line up with the file.
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

interface Hunk {
  anchors: string[];
  oldLines: string[];
  newLines: string[];
  endOfFile: boolean;
}

interface Parser {
  parsePatch(text: string): { operations: Array<{ kind: string; hunks?: Hunk[] }> };
}

interface Engine {
  applyHunks(
    fileText: string,
    hunks: readonly Hunk[],
    path: string,
  ): { text: string; matched: string[] };
}

export default async function check(chapterDir: string): Promise<void> {
  const module = (path: string) => import(pathToFileURL(join(chapterDir, path)).href);
  const parser = (await module("src/patch/parse-patch.ts")) as Parser;
  const engine = (await module("src/patch/apply-hunks.ts")) as Engine;
  const apply = (file: string, ...lines: string[]) => {
    const text = ["*** Begin Patch", "*** Update File: f.ts", ...lines, "*** End Patch", ""];
    const hunks = parser.parsePatch(text.join("\n")).operations[0]?.hunks ?? [];
    return engine.applyHunks(file, hunks, "f.ts");
  };

  // The model indented the body with 4 spaces where the file has 2, '+' line included.
  const shifted = apply(
    "function f() {\n  return 1;\n}\n",
    "@@",
    " function f() {",
    "-    return 1;",
    "+    return 2;",
    " }",
  );
  assert.deepEqual(shifted.matched, ["surrounding_whitespace"]);
  assert.equal(
    shifted.text,
    "function f() {\n  return 2;\n}\n",
    "the '+' line should take the file's 2 spaces, as the removed line it replaces had",
  );

  // Every line 2 spaces too deep: the added lines keep their depth relative to each other.
  const nested = apply(
    "class A {\n  run() {\n    go();\n  }\n}\n",
    "@@",
    "     run() {",
    "+      stop();",
    "+      if (done) {",
    "+        return;",
    "+      }",
    "       go();",
  );
  assert.equal(
    nested.text,
    "class A {\n  run() {\n    stop();\n    if (done) {\n      return;\n    }\n    go();\n  }\n}\n",
    `the added block should move 2 spaces left, as a whole:\n${nested.text}`,
  );

  // The model got the removed lines wrong but the added lines right: they stay as sent.
  const right = apply(
    "function f() {\n  return 1;\n}\n",
    "@@ function f() {",
    "-    return 1;",
    "+  return 2;",
  );
  assert.equal(right.text, "function f() {\n  return 2;\n}\n", "correctly indented lines stay");

  // An exact match changes nothing about the '+' lines, however they are indented.
  const exact = apply("a\nb\n", "@@", " a", "-b", "+      deep");
  assert.equal(exact.text, "a\n      deep\n", "after an exact match the '+' lines are the patch's");
}
