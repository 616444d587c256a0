// The "Run it" output on each chapter page is a committed capture of the real offline demo. This
// re-runs every demo and fails when a committed capture is stale.
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import {
  DEMOS,
  DEMO_PATCH_FILE,
  capturableChapters,
  demoPatch,
  normaliseOutput,
  outputPath,
  runDemo,
} from "../../scripts/capture-outputs.ts";
import { PATCH_ERRORS_FILE, renderPatchErrors } from "../../scripts/capture-patch-errors.ts";
import { sitePages } from "./site-pages.ts";

const REFRESH = "Run `pnpm exec tsx scripts/capture-outputs.ts` and commit docs/outputs/.";
// A demo is a real run of a chapter as a child process: 5 to 17 s on a quiet two-core machine,
// over the default 30 s when the break-it scenarios run beside it (as they do in `pnpm test`).
// The capture's own limit on the child is 120 s (capture-outputs.ts).
const DEMO_TIMEOUT = 120_000;

describe("captured demo outputs", () => {
  test("every chapter page has a demo to capture", () => {
    const pageSlugs = sitePages()
      .filter((page) => page.source.startsWith("chapters/"))
      .map((page) => page.source.replace(/^chapters\/|\.md$/g, ""));
    expect(pageSlugs.filter((slug) => !(slug in DEMOS))).toEqual([]);
  });

  // Concurrently: each demo is a separate Node, mostly waiting on its start-up.
  test.concurrent.each(capturableChapters())(
    "docs/outputs for %s matches what the demo prints now",
    async (slug) => {
      const file = outputPath(slug);
      expect(existsSync(file), `${file} is missing. ${REFRESH}`).toBe(true);
      const fresh = await runDemo(slug, DEMOS[slug] ?? {}, { bundled: true });
      expect(normaliseOutput(readFileSync(file, "utf8")), `stale capture. ${REFRESH}`).toBe(
        normaliseOutput(fresh),
      );
    },
    DEMO_TIMEOUT,
  );

  test("docs/outputs/demo-patch.txt is the patch the bug-fix demo sends", () => {
    expect(readFileSync(DEMO_PATCH_FILE, "utf8"), `stale. ${REFRESH}`).toBe(demoPatch());
  });

  test("docs/outputs/patch-errors.md matches what apply_patch says now", async () => {
    expect(
      readFileSync(PATCH_ERRORS_FILE, "utf8"),
      "stale. Run `pnpm exec tsx scripts/capture-patch-errors.ts` and commit docs/outputs/.",
    ).toBe(await renderPatchErrors());
  });

  test("normalising hides what differs between honest runs, and nothing else", () => {
    const run =
      "answer: 42 on 2026-01-31\nundo 20261130-073849-5f677e\ntokens: 13 in\nsaved /tmp/agent-x1Y2/a.ts in 12 ms at 2025-01-02T03:04:05.678Z via 127.0.0.1:43123";
    expect(normaliseOutput(run)).toBe(
      "answer: 42 on <date>\nundo <run>\ntokens: <n> in\nsaved <tmp>/a.ts in <duration> at <time> via 127.0.0.1:<port>",
    );
  });
});
