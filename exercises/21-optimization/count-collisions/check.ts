// Exercise "Count the collisions": stats.collisions, when given, counts the lines that a hunk's
// hash led to but that turned out to be different lines; the right line is still patched, and
// `comparisons` keeps the values the engine tests pin.
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

interface Stats {
  comparisons: number;
  collisions?: number;
}

interface Engine {
  applyHunks(
    fileText: string,
    hunks: readonly Hunk[],
    path: string,
    stats?: Stats,
  ): { text: string; matched: string[] };
}

interface Seek {
  hashText(text: string): number;
}

/** Two different lines with the same hash, found by trying numbered lines. */
function collidingLines(seek: Seek): [string, string] {
  const seen = new Map<number, string>();
  for (let i = 0; ; i++) {
    const line = `  total += item${i};`;
    const hash = seek.hashText(line);
    const earlier = seen.get(hash);
    if (earlier !== undefined) return [earlier, line];
    seen.set(hash, line);
  }
}

export default async function check(chapterDir: string): Promise<void> {
  const module = (path: string) => import(pathToFileURL(join(chapterDir, path)).href);
  const parser = (await module("src/patch/parse-patch.ts")) as Parser;
  const engine = (await module("src/patch/apply-hunks.ts")) as Engine;
  const seek = (await module("src/patch/seek-hunk.ts")) as Seek;
  const [first, second] = collidingLines(seek);

  const hunksOf = (...lines: string[]): Hunk[] => {
    const text = ["*** Begin Patch", "*** Update File: f.ts", "@@", ...lines, "*** End Patch", ""];
    return parser.parsePatch(text.join("\n")).operations[0]?.hunks ?? [];
  };
  const file = [first, second, "  return total;", ""].join("\n");

  /** Applies the hunk with and without counting collisions: the two runs must agree. */
  const run = (...lines: string[]) => {
    const counted: Stats = { comparisons: 0, collisions: 0 };
    const result = engine.applyHunks(file, hunksOf(...lines), "f.ts", counted);
    const plain: Stats = { comparisons: 0 };
    engine.applyHunks(file, hunksOf(...lines), "f.ts", plain);
    assert.equal(
      counted.comparisons,
      plain.comparisons,
      "counting collisions must not change `comparisons`: the engine tests pin its values",
    );
    return { text: result.text, collisions: counted.collisions };
  };

  const onSecond = run(`-${second}`, "+  total = 0;");
  assert.equal(
    onSecond.text,
    [first, "  total = 0;", "  return total;", ""].join("\n"),
    "the line the hunk names is patched, not the one with the same hash",
  );
  assert.equal(
    onSecond.collisions,
    1,
    `patching the second of two lines with the same hash meets the first: 1 collision ` +
      `(stats.collisions is ${onSecond.collisions})`,
  );

  const onFirst = run(`-${first}`, "+  total = 0;");
  assert.equal(onFirst.text, ["  total = 0;", second, "  return total;", ""].join("\n"));
  assert.equal(onFirst.collisions, 1, "the second line is a candidate too, and a collision");

  const plain = run("-  return total;", "+  return 0;");
  assert.equal(plain.collisions, 0, "a line that shares its hash with no other line: none");
}
