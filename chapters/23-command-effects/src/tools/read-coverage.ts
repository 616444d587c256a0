import type { RunLedger } from "../ledger/run-ledger.ts";

/** Lines first to last of a file, 1-based and inclusive. */
export type LineRange = [first: number, last: number];

/**
 * Reads add up. read_file shows at most 2,000 lines or 100 KB per call, so a
 * bigger file takes several reads with an offset, and none of them alone is a
 * full read. Once reads of the same bytes (one SHA-256) have shown every line,
 * the agent has seen the file whole, just as after one full read. Lines seen
 * of other bytes prove nothing about these, so a new hash starts over.
 */
export class ReadCoverage {
  private readonly files = new Map<string, { sha256: string; unread: LineRange[] }>();

  /** Records the lines a read showed in full; returns the lines of these bytes still unread. */
  add(path: string, sha256: string, lines: { total: number; shown: LineRange[] }): LineRange[] {
    const known = this.files.get(path);
    let unread: LineRange[] =
      known?.sha256 === sha256 ? known.unread : lines.total > 0 ? [[1, lines.total]] : [];
    for (const range of lines.shown) unread = subtract(unread, range);
    this.files.set(path, { sha256, unread });
    return unread;
  }
}

/** The parts of `ranges` outside `[first, last]`. */
function subtract(ranges: readonly LineRange[], [first, last]: LineRange): LineRange[] {
  return ranges.flatMap(([from, to]): LineRange[] => {
    if (to < first || from > last) return [[from, to]];
    const before: LineRange[] = from < first ? [[from, first - 1]] : [];
    const after: LineRange[] = to > last ? [[last + 1, to]] : [];
    return [...before, ...after];
  });
}

/** "2001-4000, 5400": ranges as the model reads them. */
export function describeRanges(ranges: readonly LineRange[]): string {
  return ranges.map(([from, to]) => (from === to ? `${from}` : `${from}-${to}`)).join(", ");
}

// One coverage per run, and the ledger stands for the run. The ledger records
// what happened (each read, and whether it completed the file); which lines
// are still missing is working state of the current process, kept beside it.
const coverageOfRun = new WeakMap<RunLedger, ReadCoverage>();

export function coverageOf(ledger: RunLedger): ReadCoverage {
  let coverage = coverageOfRun.get(ledger);
  if (coverage === undefined) {
    coverage = new ReadCoverage();
    coverageOfRun.set(ledger, coverage);
  }
  return coverage;
}
