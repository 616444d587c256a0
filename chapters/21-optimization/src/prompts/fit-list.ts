import { countTextTokens } from "../context/token-counter.ts";

/** One entry of a list in the prompt: a name that must be there, and a text that may be cut. */
export interface ListEntry {
  name: string;
  text: string;
}

/** What fitting a list cost its entries, for the line that says so. */
export interface ListCuts {
  /** Entries whose text was shortened, or left out when `namesOnly`. */
  shortened: number;
  namesOnly: boolean;
  /** Entries not named at all: only when even the names alone do not fit. */
  leftOut: number;
}

// Shorter than this, a text says too little to choose by: the names alone are cheaper.
const MIN_TEXT_CHARS = 40;

/**
 * `head`, then one line per entry, within `maxTokens`. Every name stays as long as it can: first
 * each text is cut to the same length (shorter ones stay whole), so no entry is favoured for
 * sorting first; then the names go alone on one line; only then are names left out. `note`
 * words what was cut, and its line counts towards the cap.
 */
export function fitList(
  head: string[],
  entries: readonly ListEntry[],
  maxTokens: number,
  note: (cuts: ListCuts) => string,
): string {
  const fits = (lines: string[]) => countTextTokens(lines.join("\n")) <= maxTokens;
  const texts = entries.map((entry) => oneLine(entry.text));
  const withTexts = (limit: number) => {
    const lines = entries.map((entry, i) =>
      texts[i] === "" ? `- ${entry.name}` : `- ${entry.name}: ${shorten(texts[i]!, limit)}`,
    );
    const shortened = texts.filter((text) => text.length > limit).length;
    const cuts = { shortened, namesOnly: false, leftOut: 0 };
    return [...head, ...lines, ...(shortened > 0 ? [note(cuts)] : [])];
  };
  const longest = Math.max(0, ...texts.map((text) => text.length));
  if (fits(withTexts(longest))) return withTexts(longest).join("\n");
  const limit = largestFitting(MIN_TEXT_CHARS, longest, (n) => fits(withTexts(n)));
  if (limit !== undefined) return withTexts(limit).join("\n");

  const namesOnly = (count: number) => {
    const cuts = { shortened: entries.length, namesOnly: true, leftOut: entries.length - count };
    const names = entries.slice(0, count).map((entry) => entry.name);
    return [...head, `- ${names.join(", ")}`, note(cuts)];
  };
  const count = largestFitting(1, entries.length, (n) => fits(namesOnly(n))) ?? 1;
  return namesOnly(count).join("\n");
}

/** The text, or its start cut after a word and marked "…", at most `limit` characters. */
export function shorten(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const start = text.slice(0, Math.max(1, limit - 1));
  const space = start.lastIndexOf(" ");
  return `${space > 0 ? start.slice(0, space) : start}…`;
}

/** On one line: a line break in a text must not start a line of the prompt. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** The largest n in [low, high] for which `fits(n)`, if any: fits must only turn false as n grows. */
export function largestFitting(
  low: number,
  high: number,
  fits: (n: number) => boolean,
): number | undefined {
  if (high < low || !fits(low)) return undefined;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (fits(mid)) low = mid;
    else high = mid - 1;
  }
  return low;
}
