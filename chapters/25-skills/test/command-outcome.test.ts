// What the model reads after run_command, and what the person reads when nothing confines the
// commands: both are texts other code (a model, a person) acts on, so they are pinned here.
import { describe, expect, it } from "vitest";
import type { CommandOutcome } from "../src/commands/run-command.ts";
import { RunLedger } from "../src/ledger/run-ledger.ts";
import { summaryLines } from "../src/loop/run-summary.ts";
import { describeOutcome } from "../src/tools/run-command-tool.ts";
import { useTempWorkspace } from "./tool-test-workspace.ts";

const workspace = useTempWorkspace();

const exited = (exitCode: number, output: string): CommandOutcome => ({
  exitCode,
  signal: null,
  timedOut: false,
  aborted: false,
  durationMs: 1234,
  output,
});

describe("describeOutcome", () => {
  it("ends with the files the command changed, by letter, and notes what nobody checked", () => {
    const changes = [
      { path: "dist/app.js", status: "created", before: null, after: "b" },
      { path: "src/cart.mjs", status: "changed", before: "a", after: "c" },
      { path: "tmp.txt", status: "deleted", before: "d", after: null },
    ] as const;
    const notices = ["2 files were not checked (past the snapshot's caps, or unreadable): …"];
    expect(describeOutcome("node build.mjs", exited(0, "built\n"), [...changes], notices)).toBe(
      [
        "exit 0 after 1.2 s: node build.mjs",
        "built",
        "files changed by this command: A dist/app.js, M src/cart.mjs, D tmp.txt",
        "Note: 2 files were not checked (past the snapshot's caps, or unreadable): …",
      ].join("\n"),
    );
  });

  it("names the first 50 changed files and counts the rest", () => {
    const changes = Array.from({ length: 5_000 }, (_, i) => ({
      path: `junk/${String(i).padStart(4, "0")}.txt`,
      status: "created" as const,
      before: null,
      after: "b",
    }));
    const text = describeOutcome("node junk.mjs", exited(0, ""), changes);
    expect(text).toContain("A junk/0049.txt … and 4950 more (the run's ledger has them all)");
    expect(text).not.toContain("junk/0050.txt");
    expect(text.length).toBeLessThan(1_200);
  });

  it("says none when the command changed nothing", () => {
    expect(describeOutcome("node check.mjs", exited(1, "1 of 7 checks failed\n"), [])).toBe(
      "exit 1 after 1.2 s: node check.mjs\n1 of 7 checks failed\nfiles changed by this command: none",
    );
  });
});

describe("the run summary", () => {
  it("lists each command's changes, and says once when no sandbox confined them", async () => {
    const ledger = await RunLedger.open(workspace.root(), { task: "t", model: "m" });
    const ran = { exit_code: 0, signal: null, timed_out: false, aborted: false, duration_ms: 5 };
    await ledger.recordCommand({
      command: "node format.mjs",
      ...ran,
      output: "",
      sandbox: "none",
      changes: [
        { path: "src/cart.mjs", status: "changed", before: "a".repeat(64), after: "b".repeat(64) },
      ],
      skipped: 0,
    });
    await ledger.recordCommand({
      command: "node check.mjs",
      ...ran,
      output: "",
      sandbox: "none",
      changes: [],
      skipped: 0,
    });
    const lines = summaryLines({ reason: "done", message: null }, ledger, []);
    await ledger.close();
    expect(lines).toContain(
      "commands run: node format.mjs → exit 0 (M src/cart.mjs); node check.mjs → exit 0",
    );
    expect(lines.filter((line) => line.startsWith("sandbox:"))).toEqual([
      "sandbox: none (bwrap does not work here): the commands ran unconfined",
    ]);
  });
});
