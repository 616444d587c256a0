import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import {
  ledgerFacts,
  MAX_COMMAND_CHANGES,
  MAX_FACT_LINES,
} from "../src/compaction/ledger-facts.ts";
import { RunLedger } from "../src/ledger/run-ledger.ts";
import { A, B, busyRun, C, commandEvent, planSteps } from "./compaction-fixtures.ts";

describe("the facts from the ledger", () => {
  test("say what the run did, in a fixed format", () => {
    expect(ledgerFacts(busyRun())).toBe(
      [
        "Task: Fix the coupon.",
        "Files read (sha256 of the bytes read):",
        "- README.md cccccccccccc (partial)",
        "- src/cart.mjs bbbbbbbbbbbb (full)",
        "Files written:",
        "- src/cart.mjs: changed",
        "- src/new.mjs: created",
        "- old.txt: deleted",
        "Commands run:",
        "- `node format.mjs` → exit 0 (changed src/cart.mjs)",
        "- `node check.mjs` → exit 1",
        "Plan:",
        "- [done] Read the cart",
        "- [done] Fix total()",
        "- [in_progress] Run the check",
        "Open failures:",
        "- `node check.mjs` → exit 1",
        "- search_text failed: bad_pattern",
        "Skills loaded (load one again if you need its steps):",
        "- release-notes (.agents/skills/release-notes/SKILL.md)",
      ].join("\n"),
    );
  });

  test("a failure is open until the same command or tool works", () => {
    const events = busyRun();
    events.push(commandEvent(3, "node check.mjs", 0));
    events.push({ type: "tool_call", time: "t", tool: "search_text", outcome: "ok" });
    expect(ledgerFacts(events)).not.toContain("Open failures");
  });

  test("a command that timed out or was killed is a failure", () => {
    const start = busyRun()[0]!;
    const killed = commandEvent(1, "sleep 100", null);
    const timedOut = { ...commandEvent(2, "npm test", null), timed_out: true };
    expect(ledgerFacts([start, killed, timedOut])).toContain(
      "Open failures:\n- `sleep 100` → killed\n- `npm test` → timed out",
    );
  });

  test("an empty run gives the task alone", () => {
    expect(ledgerFacts(busyRun().slice(0, 1))).toBe("Task: Fix the coupon.");
  });

  test("a ledger read back from disk gives the same facts as the run had (compaction and resume agree)", async () => {
    const workspace = await mkdtemp(join(tmpdir(), "facts-"));
    try {
      const ledger = await RunLedger.open(workspace, { task: "Fix the coupon.", model: "m" });
      await ledger.recordRead("src/cart.mjs", A, { full: true });
      await ledger.recordRead("README.md", C, { full: false });
      await ledger.recordWrite("src/cart.mjs", { before: A, after: B });
      const { n: _n, type: _type, time: _time, ...check } = commandEvent(1, "node check.mjs", 1);
      await ledger.recordCommand(check);
      await ledger.recordPlan(
        planSteps([
          ["Fix total()", "done"],
          ["Run the check", "in_progress"],
        ]),
      );
      await ledger.recordSkillLoaded({ name: "release-notes", path: "SKILL.md", sha256: C });
      await ledger.finish("budget");
      const live = ledgerFacts(ledger.events());
      expect(live).toBe(
        [
          "Task: Fix the coupon.",
          "Files read (sha256 of the bytes read):",
          "- src/cart.mjs aaaaaaaaaaaa (full)",
          "- README.md cccccccccccc (partial)",
          "Files written:",
          "- src/cart.mjs: changed",
          "Commands run:",
          "- `node check.mjs` → exit 1",
          "Plan:",
          "- [done] Fix total()",
          "- [in_progress] Run the check",
          "Open failures:",
          "- `node check.mjs` → exit 1",
          "Skills loaded (load one again if you need its steps):",
          "- release-notes (SKILL.md)",
        ].join("\n"),
      );
      expect(ledgerFacts((await RunLedger.load(workspace, ledger.runId)).events())).toBe(live);
    } finally {
      await rm(workspace, { recursive: true, force: true });
    }
  });

  test("a long run's facts stay short: the latest lines of each section, a few changes per command", () => {
    const start = busyRun()[0]!;
    const reads = Array.from({ length: MAX_FACT_LINES + 8 }, (_, i) => ({
      type: "file_read" as const,
      time: "t",
      path: `logs/day-${i + 1}.log`,
      sha256: A,
      full: true,
    }));
    const formatter = commandEvent(1, "npm run format", 0);
    for (let i = 1; i <= MAX_COMMAND_CHANGES + 3; i++) {
      formatter.changes.push({ path: `src/f${i}.mjs`, status: "changed", before: A, after: B });
    }
    const lines = ledgerFacts([start, ...reads, formatter]).split("\n");
    expect(lines.slice(1, 4)).toEqual([
      "Files read (sha256 of the bytes read):",
      "- … and 8 earlier",
      "- logs/day-9.log aaaaaaaaaaaa (full)",
    ]);
    expect(lines.at(-3)).toBe("- logs/day-20.log aaaaaaaaaaaa (full)");
    expect(lines.at(-1)).toBe(
      "- `npm run format` → exit 0 (changed src/f1.mjs, changed src/f2.mjs, changed src/f3.mjs, changed src/f4.mjs, changed src/f5.mjs, 3 more)",
    );
  });
});
