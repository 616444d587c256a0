// Test helpers for chapter 26: ledger events as a run would leave them, including the plan and
// skill events that chapters 24 and 25 record, written directly instead of through their tools.
import type { LedgerEvent } from "../src/ledger/ledger-events.ts";

export const A = "a".repeat(64);
export const B = "b".repeat(64);
export const C = "c".repeat(64);
const time = "2025-01-31T14:25:01.000Z";

type Steps = Array<[string, "pending" | "in_progress" | "done" | "blocked"]>;

/** A plan as update_plan sends it: `ledger.recordPlan(planSteps([...]))`. */
export function planSteps(steps: Steps) {
  return steps.map(([step, status]) => ({ step, status }));
}

export function planEvent(steps: Steps) {
  return { type: "plan", time, steps: planSteps(steps) } as const;
}

export function commandEvent(n: number, command: string, exitCode: number | null) {
  return {
    type: "command",
    time,
    n,
    command,
    exit_code: exitCode,
    signal: null,
    timed_out: false,
    aborted: false,
    duration_ms: 10,
    output: "",
    sandbox: "none",
    changes: [] as Array<{
      path: string;
      status: "created" | "changed" | "deleted";
      before: string | null;
      after: string | null;
    }>,
    skipped: 0,
  } as const;
}

/** A run that read, wrote, ran commands, planned, failed, and loaded a skill. */
export function busyRun(): LedgerEvent[] {
  const formatter = commandEvent(1, "node format.mjs", 0);
  formatter.changes.push({ path: "src/cart.mjs", status: "changed", before: A, after: B });
  return [
    { type: "run_start", time, run_id: "r1", task: "Fix the coupon.", model: "m", cwd: "/w" },
    { type: "file_read", time, path: "src/cart.mjs", sha256: A, full: true },
    { type: "file_read", time, path: "README.md", sha256: C, full: false },
    {
      type: "skill_loaded",
      time,
      name: "release-notes",
      path: ".agents/skills/release-notes/SKILL.md",
      sha256: C,
    },
    planEvent([
      ["Read the cart", "in_progress"],
      ["Fix total()", "pending"],
    ]),
    formatter,
    { type: "tool_call", time, tool: "apply_patch", outcome: "error", code: "not_read" },
    { type: "file_read", time, path: "src/cart.mjs", sha256: B, full: true },
    {
      type: "file_written",
      time,
      path: "src/cart.mjs",
      before_sha256: B,
      after_sha256: C,
      revision: 2,
    },
    { type: "tool_call", time, tool: "apply_patch", outcome: "ok" },
    { type: "file_written", time, path: "src/new.mjs", after_sha256: A, revision: 3 },
    { type: "file_written", time, path: "old.txt", before_sha256: A, revision: 4 },
    commandEvent(2, "node check.mjs", 1),
    { type: "tool_call", time, tool: "search_text", outcome: "error", code: "bad_pattern" },
    planEvent([
      ["Read the cart", "done"],
      ["Fix total()", "done"],
      ["Run the check", "in_progress"],
    ]),
  ];
}
