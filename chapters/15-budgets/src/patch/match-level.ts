import type { MatchLevel } from "./patch-types.ts";

/**
 * The matching ladder, strictest first. A hunk is looked for at each level in turn and
 * the first level that finds it wins, so a loose comparison never beats an exact one.
 */
export const MATCH_LEVELS: readonly MatchLevel[] = [
  "exact",
  "trailing_whitespace",
  "surrounding_whitespace",
  "punctuation",
];

// Models often "type" typographic characters that editors and word processors produce:
// dashes, curly quotes and non-breaking spaces where the file has plain ASCII.
const DASHES = /[\u2010-\u2015\u2212]/g;
const SINGLE_QUOTES = /[\u2018\u2019\u201A\u201B]/g;
const DOUBLE_QUOTES = /[\u201C\u201D\u201E\u201F]/g;
const ODD_SPACES = /[\u00A0\u2000-\u200A\u202F\u205F\u3000]/g;

/** The form of a line that is compared at the given level. */
export function lineKey(line: string, level: MatchLevel): string {
  switch (level) {
    case "exact":
      return line;
    case "trailing_whitespace":
      return line.trimEnd();
    case "surrounding_whitespace":
      return line.trim();
    case "punctuation":
      return line
        .replace(DASHES, "-")
        .replace(SINGLE_QUOTES, "'")
        .replace(DOUBLE_QUOTES, '"')
        .replace(ODD_SPACES, " ")
        .trim();
  }
}
