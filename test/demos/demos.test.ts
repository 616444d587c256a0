// Every chapter's "break it" scenario, run for real: on its own chapter it must show the lesson at
// work, and on the chapter before it the failure the lesson prevents (where that chapter can run
// it). A scenario whose run stops showing what it describes fails here.
import { describe, expect, test } from "vitest";
import { isRunnable, listChapters, type Chapter } from "../../scripts/lib/chapters.ts";
import { hasScenario, loadScenario, scenarioProblems } from "../../scripts/lib/demo-scenario.ts";
import { runDemo } from "../../scripts/lib/run-demo.ts";
import { breakItCapture, breakItPath } from "../../scripts/capture-break-it.ts";
import { normaliseOutput } from "../../scripts/capture-outputs.ts";
import { existsSync, readFileSync } from "node:fs";

const REFRESH =
  "Run `pnpm exec tsx scripts/capture-break-it.ts` and commit docs/outputs/break-it/.";

/** The page's "Break it" section shows this run: its committed capture must still be what it prints. */
function expectCaptured(path: string, fresh: string): void {
  expect(existsSync(path), `${path} is missing. ${REFRESH}`).toBe(true);
  expect(normaliseOutput(readFileSync(path, "utf8")), `stale capture. ${REFRESH}`).toBe(
    normaliseOutput(fresh),
  );
}

const chapters = listChapters().filter(isRunnable);
const owners = chapters.filter((c) => hasScenario(c.slug));
const withPrevious = owners
  .map((owner) => ({ owner, previous: chapters[chapters.indexOf(owner) - 1] }))
  .filter(
    (pair): pair is { owner: Chapter; previous: Chapter } =>
      pair.previous !== undefined && loadScenario(pair.owner.slug).previous !== undefined,
  );
// The chapters start from cached bundles, not tsx: the same code, a fraction of the CPU.
const quiet = { write: () => {}, bundled: true };
// A scenario is a real run of a chapter as a child process; chapter 19's makes fifty model calls.
// On a loaded two-core machine (the whole suite runs beside it) that can take over 30 s.
const RUN_TIMEOUT = 120_000;

describe.concurrent("break-it scenarios", () => {
  test.each(owners.map((c) => [c.slug, c] as const))(
    "%s: its scenario shows the lesson at work",
    async (_slug, owner) => {
      const run = await runDemo(loadScenario(owner.slug), owner, owner, quiet);
      expect(run.ok, run.transcript).toBe(true);
      expectCaptured(breakItPath(owner, "this"), breakItCapture(owner, owner, run.transcript));
    },
    RUN_TIMEOUT,
  );

  test.each(withPrevious.map((p) => [p.owner.slug, p] as const))(
    "%s: its scenario shows the failure on the chapter before",
    async (_slug, { owner, previous }) => {
      const run = await runDemo(loadScenario(owner.slug), owner, previous, quiet);
      expect(run.ok, run.transcript).toBe(true);
      expectCaptured(
        breakItPath(owner, "previous"),
        breakItCapture(owner, previous, run.transcript),
      );
    },
    RUN_TIMEOUT,
  );
});

describe("scenario files", () => {
  test("every runnable chapter has a break-it scenario", () => {
    expect(chapters.filter((c) => !hasScenario(c.slug)).map((c) => c.slug)).toEqual([]);
  });

  test("every chapter after the first runs its scenario on the chapter before too", () => {
    // Every chapter's scenario also runs on the chapter before it, chapter 2's conversation on
    // chapter 1 included: only the first chapter has none before it.
    const withoutPrevious = owners
      .filter((c) => c !== chapters[0])
      .filter((c) => loadScenario(c.slug).previous === undefined)
      .map((c) => c.slug);
    expect(withoutPrevious).toEqual([]);
  });

  test("a scenario with a typo or a missing part is refused, with every problem named", () => {
    expect(
      scenarioProblems({
        title: "t",
        story: "s",
        scrpit: "chat",
        edits: [{ beforeStep: "1" }],
        expect: { output: ["x"] },
      }),
    ).toEqual([
      'unknown key "scrpit"',
      '"script" must be a string: the offline model\'s script for the agent',
      "edits[0] needs beforeStep (number), path, find, replace, note",
      '"expect" needs lookFor (string), output (strings), optional script, absent, files, missingFiles, prompt and notInPrompt',
    ]);
  });

  test("files outside the workspace and links to them are maps of strings", () => {
    const base = {
      title: "t",
      story: "s",
      script: "chat",
      expect: { lookFor: "l", output: ["x"] },
    };
    const outside = { "secret.txt": "s" };
    expect(scenarioProblems({ ...base, outside, links: { ops: "{outside}" } })).toEqual([]);
    expect(scenarioProblems({ ...base, outside: ["secret.txt"], links: { ops: 1 } })).toEqual([
      '"outside" must map names to strings',
      '"links" must map names to strings',
    ]);
  });

  test("the patch tool needs no script, the agent does, and a generated file needs all its parts", () => {
    const base = { title: "t", story: "s", expect: { lookFor: "l", output: ["x"] } };
    expect(scenarioProblems({ ...base, program: "apply-patch" })).toEqual([]);
    expect(scenarioProblems({ ...base, program: "agent" })).toEqual([
      '"script" must be a string: the offline model\'s script for the agent',
    ]);
    expect(
      scenarioProblems({
        ...base,
        program: "shell",
        script: "chat",
        generate: [{ path: "a.txt", lines: 0, line: "x" }],
      }),
    ).toEqual([
      '"program" must be "agent" or "apply-patch"',
      "generate[0] needs path, line (strings) and lines (a count)",
    ]);
  });

  test("a fault the offline model does not know, or one missing its number, is refused", () => {
    const base = {
      title: "t",
      story: "s",
      script: "chat",
      expect: { lookFor: "l", output: ["x"] },
    };
    expect(
      scenarioProblems({
        ...base,
        faults: [{ kind: "echo-key" }, { kind: "rate_limit" }, { kind: "echo_key" }],
      }),
    ).toEqual([
      "faults[0] needs a kind, one of rate_limit, server_error, stall, cut_stream_mid_tool_call, malformed_tool_arguments, unknown_model, bad_key, echo_key, context_window",
      "faults[1] (rate_limit) needs retryAfterSeconds (a number)",
    ]);
  });

  test("a complete scenario has no problems", () => {
    expect(
      scenarioProblems({
        title: "t",
        story: "s",
        script: "chat",
        args: ["--repo", "{workspace}"],
        expect: { lookFor: "l", output: ["x"], files: { "a.txt": "y" } },
      }),
    ).toEqual([]);
  });
});
