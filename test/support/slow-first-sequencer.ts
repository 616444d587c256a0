// Vitest starts the longest test files first when it has timings from an earlier run, and the
// biggest files first when it has none (a fresh clone). The site's browser test is neither the
// biggest file nor, on a first run, known to be slow, yet it is the longest chain in the suite:
// it builds the site, then visits every page. Starting it first lets every other file run beside it.
import { BaseSequencer, type TestSpecification } from "vitest/node";

const LONGEST_CHAIN = "test/site/browser.test.ts";

export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const first = (file: TestSpecification): boolean =>
      file.moduleId.replaceAll("\\", "/").endsWith(LONGEST_CHAIN);
    return [...sorted.filter(first), ...sorted.filter((file) => !first(file))];
  }
}
