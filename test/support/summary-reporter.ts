// The closing lines of `pnpm test`, after vitest's own summary:
//   - why tests were skipped, once per reason and file ("skipped 26 tests in …: no Chrome …");
//   - how many chapter copies the selection left out (test/support/test-selection.ts);
//   - the plain line CI reads: "N passed, N failed", with ", K skipped" when something was skipped.
// A test file that failed outside any test (an import error, a failed beforeAll) leaves its tests
// skipped, not failed, so it counts as one failure: the line never reads "0 failed" when
// something broke. So does an error vitest caught outside every test file.
import type { SerializedError } from "vitest";
import type { Reporter, TestModule } from "vitest/node";

export interface Counts {
  passed: number;
  failed: number;
  skipped: number;
  /** "skipped N tests in FILE: NOTE", one per file and note given to ctx.skip(note) */
  skipNotes: string[];
}

export function countResults(
  modules: ReadonlyArray<TestModule>,
  unhandledErrors: ReadonlyArray<SerializedError>,
): Counts {
  const counts: Counts = { passed: 0, failed: unhandledErrors.length, skipped: 0, skipNotes: [] };
  for (const module of modules) {
    const notes = new Map<string, number>();
    let failedTests = 0;
    for (const test of module.children.allTests()) {
      const result = test.result();
      if (result.state === "passed") counts.passed++;
      else if (result.state === "failed") failedTests++;
      else {
        counts.skipped++;
        const note = result.state === "skipped" ? result.note : undefined;
        if (note !== undefined) notes.set(note, (notes.get(note) ?? 0) + 1);
      }
    }
    counts.failed += failedTests;
    if (module.state() === "failed" && failedTests === 0) counts.failed++;
    for (const [note, n] of notes) {
      counts.skipNotes.push(
        `skipped ${n} test${n === 1 ? "" : "s"} in ${module.relativeModuleId}: ${note}`,
      );
    }
  }
  return counts;
}

export function summaryLine({ passed, failed, skipped }: Counts): string {
  return `${passed} passed, ${failed} failed` + (skipped > 0 ? `, ${skipped} skipped` : "");
}

export interface SummaryOptions {
  /** chapter test files the selection left out as identical to an earlier chapter's copy */
  copiesLeftOut?: number;
}

export default class SummaryReporter implements Reporter {
  constructor(private readonly options: SummaryOptions = {}) {}

  onTestRunEnd(
    modules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<SerializedError>,
  ): void {
    const counts = countResults(modules, unhandledErrors);
    const lines = [...counts.skipNotes];
    const copies = this.options.copiesLeftOut ?? 0;
    if (copies > 0) {
      lines.push(
        `left out ${copies} chapter test files identical, with all they depend on, to an earlier chapter's copy (pnpm test:all runs them)`,
      );
    }
    lines.push(summaryLine(counts));
    process.stdout.write("\n" + lines.join("\n") + "\n");
  }
}
