// An exercise's solution on its page, revealed on demand, taken from the repository:
//
//   ::: solution strict-cli
//   What the solution does and why (Markdown).
//   :::
//
// becomes a "Solution" details block with that text, the solution's diff
// (exercises/NN-slug/strict-cli/solution.diff) and the command that checks it. The block may be
// indented, to sit inside the exercise's list item.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { EXERCISES_DIR } from "../../scripts/lib/exercises.ts";

const SOLUTION_BLOCK = /^([ \t]*)::: solution (\S+)[ \t]*\n([\s\S]*?)^\1:::[ \t]*$/gm;

/** The exercise ids a page's solution blocks name, in order. */
export function solutionIds(markdown: string): string[] {
  return [...markdown.matchAll(SOLUTION_BLOCK)].map((match) => match[2]!);
}

function chapterNumber(slug: string): number {
  return Number(slug.slice(0, 2));
}

/** A fence longer than any run of backticks in the text, so the text cannot close it. */
export function fenceFor(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((run) => run[0].length));
  return "`".repeat(longest + 1);
}

export function expandSolutions(slug: string, markdown: string): string {
  return markdown.replace(SOLUTION_BLOCK, (_all, indent: string, id: string, text: string) => {
    const path = join(EXERCISES_DIR, slug, id, "solution.diff");
    if (!existsSync(path)) {
      throw new Error(`::: solution ${id}: exercises/${slug}/${id}/solution.diff does not exist.`);
    }
    const diff = readFileSync(path, "utf8").replace(/\n$/, "");
    const ticks = fenceFor(diff);
    const why = text
      .split("\n")
      .map((line) => line.slice(Math.min(indent.length, /^\s*/.exec(line)![0].length)))
      .join("\n")
      .trim();
    const lines = [
      "::: details Solution",
      why,
      "",
      `${ticks}diff`,
      diff,
      ticks,
      "",
      `Check yours with \`pnpm exercise ${chapterNumber(slug)} ${id}\`; the test suite proves this one ` +
        `(\`exercises/${slug}/${id}/\`).`,
      ":::",
    ];
    // Every line, the diff's included, carries the indentation of the list item it sits in.
    return lines
      .join("\n")
      .split("\n")
      .map((line) => (line === "" ? "" : indent + line))
      .join("\n");
  });
}
