// Exercise "A fifth rung": a ladder level "inner_whitespace", between surrounding_whitespace and
// punctuation, that compares lines with every run of whitespace collapsed to one space.
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

interface Seek {
  MATCH_LEVELS: readonly string[];
}

function hunksOf(parser: Parser, ...lines: string[]): Hunk[] {
  const text = ["*** Begin Patch", "*** Update File: f.ts", ...lines, "*** End Patch", ""];
  return parser.parsePatch(text.join("\n")).operations[0]?.hunks ?? [];
}

function apply(engine: Engine, file: string, hunks: Hunk[]): { text: string; matched: string[] } {
  try {
    return engine.applyHunks(file, hunks, "f.ts");
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new assert.AssertionError({
      message: `the hunk should match at the new level, but it was refused:\n${message}`,
    });
  }
}

export default async function check(chapterDir: string): Promise<void> {
  const module = (path: string) => import(pathToFileURL(join(chapterDir, path)).href);
  const parser = (await module("src/patch/parse-patch.ts")) as Parser;
  const engine = (await module("src/patch/apply-hunks.ts")) as Engine;
  const seek = (await module("src/patch/seek-hunk.ts")) as Seek;

  const levels = [...seek.MATCH_LEVELS];
  const at = levels.indexOf("inner_whitespace");
  assert.ok(at !== -1, `MATCH_LEVELS has no "inner_whitespace" level: ${levels.join(", ")}`);
  assert.ok(
    at > levels.indexOf("surrounding_whitespace") && at < levels.indexOf("punctuation"),
    `"inner_whitespace" belongs between surrounding_whitespace and punctuation: ${levels.join(", ")}`,
  );

  // The file aligns with a tab; the model typed a space.
  const aligned = apply(
    engine,
    "const a\t= 1;\nconst b = 2;\n",
    hunksOf(parser, "@@", " const a = 1;", "-const b = 2;", "+const b = 3;"),
  );
  assert.deepEqual(aligned.matched, ["inner_whitespace"], "a tab typed as a space matches here");
  assert.equal(
    aligned.text,
    "const a\t= 1;\nconst b = 3;\n",
    "the context line keeps the file's tab: replaceLines copies context from the file",
  );

  // Two spaces squeezed into one, with the indentation off as well.
  const squeezed = apply(engine, "  x  =  1;\n", hunksOf(parser, "@@", "-x = 1;", "+  x = 2;"));
  assert.deepEqual(squeezed.matched, ["inner_whitespace"]);
  assert.equal(squeezed.text, "  x = 2;\n");

  // A stricter level still wins.
  const indented = apply(engine, "  y = 1;\n", hunksOf(parser, "@@", "-y = 1;", "+  y = 2;"));
  assert.deepEqual(
    indented.matched,
    ["surrounding_whitespace"],
    "a hunk that matches with only its indentation off still reports surrounding_whitespace",
  );
}
