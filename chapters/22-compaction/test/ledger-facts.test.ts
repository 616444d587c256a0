import { describe, expect, test } from "vitest";
import { ledgerFacts } from "../src/compaction/ledger-facts.ts";
import { busyRun, commandEvent } from "./compaction-fixtures.ts";

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

  test("an empty run gives the task alone; the same events always give the same text", () => {
    expect(ledgerFacts(busyRun().slice(0, 1))).toBe("Task: Fix the coupon.");
    expect(ledgerFacts(busyRun())).toBe(ledgerFacts(busyRun()));
  });
});
