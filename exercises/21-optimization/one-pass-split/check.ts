// Exercise "One pass": splitFileLines reads the text once, growing its two typed arrays as it goes,
// and still gives back every line exactly, in arrays exactly as long as the file has lines.
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

interface Lines {
  readonly starts: Int32Array;
  readonly ends: Int32Array;
  readonly length: number;
  line(index: number): string;
}

interface Engine {
  splitFileLines(text: string): { bom: string; eol: string; lines: Lines };
}

/** What the lines of `text` must be: split at LF, a CR before it dropped, no line after a final LF. */
function expectedLines(text: string): string[] {
  const body = text.startsWith("\uFEFF") ? text.slice(1) : text;
  if (body === "") return [];
  const lines = body.split("\n").map((line) => line.replace(/\r$/, ""));
  if (body.endsWith("\n")) lines.pop();
  return lines;
}

/** How many times `run` calls String.prototype.indexOf. */
function indexOfCalls(run: () => void): number {
  const original = String.prototype.indexOf;
  let calls = 0;
  String.prototype.indexOf = function (this: string, ...args: Parameters<string["indexOf"]>) {
    calls++;
    return original.apply(this, args);
  };
  try {
    run();
  } finally {
    String.prototype.indexOf = original;
  }
  return calls;
}

export default async function check(chapterDir: string): Promise<void> {
  const engine = (await import(
    pathToFileURL(join(chapterDir, "src/patch/apply-hunks.ts")).href
  )) as Engine;

  const big = Array.from({ length: 5_000 }, (_, i) => `line ${i}${i % 3 === 0 ? "\r" : ""}\n`);
  const texts = [
    "",
    "\n",
    "a",
    "a\n",
    "\r\n",
    "\uFEFF",
    "\uFEFFfirst\r\nsecond\n\nlast without break",
    big.join(""),
    big.join("") + "no break at the end",
  ];
  for (const text of texts) {
    const { lines } = engine.splitFileLines(text);
    const expected = expectedLines(text);
    const label = JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
    assert.equal(lines.length, expected.length, `${label}: ${expected.length} lines expected`);
    assert.equal(
      lines.starts.length,
      expected.length,
      `${label}: starts should be exactly as long as the file has lines (cut the arrays at the end)`,
    );
    assert.equal(lines.ends.length, expected.length, `${label}: ends too`);
    const got = Array.from({ length: lines.length }, (_, i) => lines.line(i));
    assert.deepEqual(got, expected, `${label}: every line comes back exactly`);
  }
  assert.equal(engine.splitFileLines("a\r\nb\r\nc\n").eol, "\r\n", "most lines end in CRLF");
  assert.equal(engine.splitFileLines("a\r\nb\nc\n").eol, "\n", "most lines end in LF");

  const text = Array.from({ length: 10_000 }, (_, i) => `line ${i}\n`).join("");
  const calls = indexOfCalls(() => engine.splitFileLines(text));
  assert.ok(
    calls <= 10_000 + 1,
    `splitFileLines looked for a line break ${calls} times in a text of 10,000 lines: it should ` +
      "read the text once, one indexOf per line, without counting the lines first",
  );
}
