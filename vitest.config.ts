import { existsSync, readdirSync, readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import SlowFirstSequencer from "./test/support/slow-first-sequencer.ts";
import { namesTestPaths, selectChapterTests } from "./test/support/test-selection.ts";

const ROOT = fileURLToPath(new URL(".", import.meta.url));
const INCLUDE = ["chapters/*/test/**/*.test.ts", "shared/test/**/*.test.ts", "test/**/*.test.ts"];
const EXCLUDE = ["**/node_modules/**", "test/conformance/codex-apply-patch/**"];

/** Test files that replace a module with vi.mock: in a shared module cache, the mock would leak. */
function mockingTestFiles(): string[] {
  const chapters = readdirSync(join(ROOT, "chapters")).map((slug) => `chapters/${slug}/test`);
  return ["shared/test", "test", ...chapters]
    .filter((folder) => existsSync(join(ROOT, folder)))
    .flatMap((folder) =>
      readdirSync(join(ROOT, folder), { recursive: true, encoding: "utf8" })
        .filter((name) => name.endsWith(".test.ts") && !name.includes("node_modules"))
        .map((name) => `${folder}/${name.split(sep).join("/")}`),
    )
    .filter((file) => /\bvi\.(do)?[mM]ock\(/.test(readFileSync(join(ROOT, file), "utf8")));
}

// `pnpm test` runs each chapter test once per distinct code: a chapter's copy that is identical,
// with everything it depends on, to the previous chapter's is left out (test/support/test-selection.ts).
// `pnpm test:all` (`--mode all`) runs every copy, and so does naming a file or folder to test.
export default defineConfig(({ mode }) => {
  const namesPaths = namesTestPaths(process.argv.slice(2), existsSync);
  const selection = mode === "all" || namesPaths ? undefined : selectChapterTests(ROOT);
  const leftOut = selection?.skipped.map(({ test }) => test.file) ?? [];
  const mocking = mockingTestFiles();
  return {
    test: {
      // Vitest's default is one worker per core minus one: on a two-core machine, one, and the
      // whole suite ran in a row. Most files wait on child processes (demos, the site build,
      // Chromium), so one worker per core keeps both cores busy.
      maxWorkers: Math.max(2, availableParallelism()),
      sequence: { sequencer: SlowFirstSequencer },
      // Concurrent tests (the site's pages, the demos) run three at a time on a small machine.
      maxConcurrency: 3,
      testTimeout: 30_000,
      hookTimeout: 120_000,
      // Test files share a worker's module cache: the openai SDK, zod and the tokenizer's tables
      // load once per worker instead of once per file (that was a fifth of the suite's time).
      // A file that mocks a module runs with a fresh cache of its own.
      // (Projects merge their include and exclude lists into the root's, so those live here only.)
      projects: [
        {
          extends: true,
          test: {
            name: "shared",
            include: INCLUDE,
            exclude: [...EXCLUDE, ...leftOut, ...mocking],
            isolate: false,
          },
        },
        {
          extends: true,
          test: { name: "isolated", include: mocking, exclude: [...EXCLUDE, ...leftOut] },
        },
      ],
      reporters: [
        "default",
        ["./test/support/summary-reporter.ts", { copiesLeftOut: leftOut.length }],
      ],
    },
  };
});
