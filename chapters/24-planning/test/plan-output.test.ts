// The two places a person reads the plan: the terminal, each time the model sends one, and the
// summary after the run, taken from the ledger.
import { describe, expect, it } from "vitest";
import { RunLedger } from "../src/ledger/run-ledger.ts";
import { summaryLines } from "../src/loop/run-summary.ts";
import { planView, TerminalUi } from "../src/loop/terminal-ui.ts";
import type { PlanStep } from "../src/plan/plan.ts";
import { useTempWorkspace } from "./tool-test-workspace.ts";

const workspace = useTempWorkspace();

const PLAN: PlanStep[] = [
  { step: "Run the check to see what fails", status: "done" },
  { step: "Fix the coupon in total()", status: "in_progress" },
  { step: "Run the check again", status: "pending" },
];
const BLOCKED: PlanStep = { step: "Ask about VAT", status: "blocked" };

describe("the plan on the terminal", () => {
  it("shows each plan the model sends, one line per step under its count", () => {
    const out: string[] = [];
    const ui = new TerminalUi({ write: (t: string) => out.push(t) }, { write: () => true });
    const call = { id: "call_plan", function: { name: "update_plan", arguments: "{}" } };
    ui.toolCall(call, {
      tool_call_id: "call_plan",
      ok: true,
      content: "Plan saved: 1 of 4 done, 2 open.",
      plan: [...PLAN, BLOCKED],
    });
    expect(out.join("")).toBe(
      [
        "→ update_plan  1 of 4 done",
        "  [x] Run the check to see what fails",
        "  [>] Fix the coupon in total()",
        "  [ ] Run the check again",
        "  [!] Ask about VAT",
        "",
      ].join("\n"),
    );
    expect(planView([{ step: "Only step", status: "done" }])).toBe(
      "→ update_plan  1 of 1 done\n  [x] Only step",
    );
  });
});

describe("the plan in the summary", () => {
  it("says how many steps are done and which are open or blocked, from the ledger's last plan", async () => {
    const ledger = await RunLedger.open(workspace.root(), { task: "t", model: "m" });
    const lines = () => summaryLines({ reason: "done", message: null }, ledger, []);
    expect(lines().some((line) => line.startsWith("plan:"))).toBe(false);

    await ledger.recordPlan([...PLAN, BLOCKED]);
    expect(lines()).toContain(
      "plan: 1 of 4 done; open: Fix the coupon in total(), Run the check again; blocked: Ask about VAT",
    );
    await ledger.recordPlan(PLAN.map((s) => ({ ...s, status: "done" })));
    await ledger.close();
    expect(lines().slice(0, 2)).toEqual(["result: done", "plan: 3 of 3 done"]);
  });
});
