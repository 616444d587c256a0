// Exercise "Keys where they lie": the looser ladder levels hash a line's key where it lies in the
// file's text, as the exact level does, instead of cutting every line out and making its key; and
// every level still matches what it matched before.
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

function hunksOf(parser: Parser, ...lines: string[]): Hunk[] {
  const text = ["*** Begin Patch", "*** Update File: f.ts", ...lines, "*** End Patch", ""];
  return parser.parsePatch(text.join("\n")).operations[0]?.hunks ?? [];
}

// The String methods that make a new string from part of a line, as lineKey and line(i) do.
const MAKERS = ["slice", "substring", "substr", "trim", "trimStart", "trimEnd", "replace"] as const;

/** How many strings `run` makes with the methods above. */
function stringsMade(run: () => void): number {
  const proto = String.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
  const originals = MAKERS.map((name) => [name, proto[name]!] as const);
  let calls = 0;
  for (const [name, original] of originals) {
    proto[name] = function (this: string, ...args: unknown[]) {
      calls++;
      return original.apply(this, args);
    };
  }
  try {
    run();
  } finally {
    for (const [name, original] of originals) proto[name] = original;
  }
  return calls;
}

export default async function check(chapterDir: string): Promise<void> {
  const module = (path: string) => import(pathToFileURL(join(chapterDir, path)).href);
  const parser = (await module("src/patch/parse-patch.ts")) as Parser;
  const engine = (await module("src/patch/apply-hunks.ts")) as Engine;

  /** Applies `lines` as one hunk to `file`: the new text and the level it matched at. */
  const apply = (file: string, ...lines: string[]) => {
    try {
      return engine.applyHunks(file, hunksOf(parser, "@@", ...lines), "f.ts");
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new assert.AssertionError({ message: `the hunk should apply, but:\n${message}` });
    }
  };

  // Every level still matches what it matched in the chapter.
  const cases: Array<[string, string[], string, string]> = [
    ["a = 1;  \nb = 2;\n", ["-a = 1;", "+a = 3;"], "a = 3;\nb = 2;\n", "trailing_whitespace"],
    ["a = 1;\t\v\f\nb = 2;\n", ["-a = 1;", "+a = 3;"], "a = 3;\nb = 2;\n", "trailing_whitespace"],
    // A non-breaking space at the end: trimEnd removes it, so the key is still "z = 1;".
    ["z = 1;\u00A0\n", ["-z = 1;", "+z = 2;"], "z = 2;\n", "trailing_whitespace"],
    ["\t  x();\n", ["-x();", "+  y();"], "  y();\n", "surrounding_whitespace"],
    ["\u3000x();\n", ["-x();", "+y();"], "y();\n", "surrounding_whitespace"],
    ["  a - b;\n", ["-a \u2013 b;", "+a + b;"], "a + b;\n", "punctuation"],
    ["say(\u201Chi\u201D);\n", ['-say("hi");', '+say("bye");'], 'say("bye");\n', "punctuation"],
    ["\u00A0q \u2014 r\u00A0\n", ["-q - r", "+q + r"], "q + r\n", "punctuation"],
  ];
  for (const [file, hunk, text, level] of cases) {
    const result = apply(file, ...hunk);
    assert.equal(result.text, text, `${JSON.stringify(file)} patched by ${hunk.join(" ")}`);
    assert.deepEqual(result.matched, [level], `${JSON.stringify(file)} matches at ${level}`);
  }
  // A looser key must not make two different lines equal.
  assert.equal(apply("k = 1;\nk = 12;\n", "-k = 12;", "+k = 2;").text, "k = 1;\nk = 2;\n");

  // A file of 10,000 plain lines and a hunk that only the last level finds: all four levels are
  // built. The chapter cuts out and makes keys for every line at the three looser levels.
  const lines = Array.from({ length: 10_000 }, (_, i) => `  value${i} = compute(${i}); // ${i}`);
  lines[5_000] = "  item - target";
  const file = `${lines.join("\n")}\n`;
  const hunk = hunksOf(parser, "@@", "-item \u2013 target", "+item - found");
  let matched: string[] = [];
  const made = stringsMade(() => {
    matched = engine.applyHunks(file, hunk, "f.ts").matched;
  });
  assert.deepEqual(matched, ["punctuation"]);
  assert.ok(
    made < 1_000,
    `building the looser levels of a 10,000-line file made ${made} strings with ` +
      `${MAKERS.join(", ")}: hash their keys where they lie in the text, as the exact level does`,
  );
}
