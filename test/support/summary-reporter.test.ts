import type { TestModule } from "vitest/node";
import { describe, expect, it } from "vitest";
import { countResults, summaryLine } from "./summary-reporter.ts";

type State = "passed" | "failed" | "skipped" | "pending";

/** Just what countResults reads of a vitest TestModule. */
function module(
  relativeModuleId: string,
  tests: Array<{ state: State; note?: string }>,
  moduleState: "passed" | "failed" | "skipped" = "passed",
): TestModule {
  const fake = {
    relativeModuleId,
    state: () => moduleState,
    children: {
      *allTests() {
        for (const { state, note } of tests) yield { result: () => ({ state, note }) };
      },
    },
  };
  return fake as unknown as TestModule;
}

describe("the closing line", () => {
  it("counts passed, failed and skipped tests across files", () => {
    const counts = countResults(
      [
        module("a.test.ts", [{ state: "passed" }, { state: "failed" }, { state: "skipped" }]),
        module("b.test.ts", [{ state: "passed" }, { state: "pending" }]),
      ],
      [],
    );
    expect(summaryLine(counts)).toBe("2 passed, 1 failed, 2 skipped");
  });

  it("leaves out the skipped count when nothing was skipped", () => {
    expect(summaryLine(countResults([module("a.test.ts", [{ state: "passed" }])], []))).toBe(
      "1 passed, 0 failed",
    );
  });

  it("counts a file that failed outside its tests, and every error outside the files, as failures", () => {
    const broken = module("broken.test.ts", [{ state: "skipped" }, { state: "skipped" }], "failed");
    const counts = countResults([broken], [{ message: "unhandled rejection" }]);
    expect(summaryLine(counts)).toBe("0 passed, 2 failed, 2 skipped");
  });

  it("does not count a file twice when one of its tests failed", () => {
    const counts = countResults([module("a.test.ts", [{ state: "failed" }], "failed")], []);
    expect(counts.failed).toBe(1);
  });

  it("names why tests were skipped, once per file and reason", () => {
    const why = "no Chrome or Chromium found; to run them, set CHROME_PATH=…";
    const counts = countResults(
      [
        module("test/site/browser.test.ts", [
          { state: "skipped", note: why },
          { state: "skipped", note: why },
        ]),
        module("other.test.ts", [{ state: "skipped" }]),
      ],
      [],
    );
    expect(counts.skipNotes).toEqual([`skipped 2 tests in test/site/browser.test.ts: ${why}`]);
    expect(summaryLine(counts)).toBe("0 passed, 0 failed, 3 skipped");
  });
});
