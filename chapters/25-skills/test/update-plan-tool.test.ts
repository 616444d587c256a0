// The update_plan tool: what the model reads back, what the ledger keeps, and what it costs.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { countToolTokens } from "../src/context/token-counter.ts";
import { RunLedger } from "../src/ledger/run-ledger.ts";
import type { Approver } from "../src/loop/approval.ts";
import { agentTools } from "../src/loop/agent-tools.ts";
import { runToolBatch } from "../src/loop/tool-batch.ts";
import type { PlanStep } from "../src/plan/plan.ts";
import { toOpenAITool } from "../src/tools/define-tool.ts";
import { runToolCall } from "../src/tools/run-tool-call.ts";
import { updatePlanTool } from "../src/tools/update-plan-tool.ts";
import { useTempWorkspace } from "./tool-test-workspace.ts";

const workspace = useTempWorkspace();

const PLAN: PlanStep[] = [
  { step: "Run the check to see what fails", status: "done" },
  { step: "Fix the coupon in total()", status: "in_progress" },
  { step: "Run the check again", status: "pending" },
];

/** What the model reads back when it sends these steps. */
async function send(steps: unknown, ledger?: RunLedger) {
  const call = {
    id: "call_plan",
    function: { name: "update_plan", arguments: JSON.stringify({ steps }) },
  };
  return runToolCall([updatePlanTool], call, { ...workspace.context(), ledger });
}

const openLedger = () => RunLedger.open(workspace.root(), { task: "Fix the total", model: "test" });

describe("update_plan", () => {
  it("records the whole plan in the ledger; the latest plan is the plan, also replayed from disk", async () => {
    const ledger = await openLedger();
    const first = PLAN.map((s, i) => ({ ...s, status: i === 0 ? "in_progress" : "pending" }));
    expect((await send(first, ledger)).content).toBe("Plan saved: 0 of 3 done, 3 open.");
    const result = await send(PLAN, ledger);
    await ledger.close();

    expect(result).toMatchObject({
      ok: true,
      content: "Plan saved: 1 of 3 done, 2 open.",
      plan: PLAN,
    });
    expect(ledger.plan()).toEqual(PLAN);
    const replayed = await RunLedger.load(workspace.root(), ledger.runId);
    expect(replayed.plan()).toEqual(PLAN);
    expect(replayed.events().filter((e) => e.type === "plan")).toHaveLength(2);
  });

  it("refuses a plan that breaks a rule as invalid_plan, and keeps the last good one", async () => {
    const ledger = await openLedger();
    await send(PLAN, ledger);
    const twice = PLAN.map((s) => ({ ...s, status: "in_progress" }));
    const result = await send(twice, ledger);
    await ledger.close();
    expect(result).toMatchObject({ ok: false, code: "invalid_plan" });
    expect(result.content).toBe(
      'Error [invalid_plan]: 3 steps are in_progress ("Run the check to see what fails", "Fix the coupon in total()", "Run the check again"); at most one step may be.\n' +
        "Hint: Mark the others pending or done and send the whole plan again.",
    );
    expect(ledger.plan()).toEqual(PLAN);
  });

  it("keeps each step's text trimmed", async () => {
    const ledger = await openLedger();
    const result = await send([{ step: "  Run the check\t", status: "pending" }], ledger);
    await ledger.close();
    const kept: PlanStep[] = [{ step: "Run the check", status: "pending" }];
    expect(result).toMatchObject({ ok: true, plan: kept });
    expect(ledger.plan()).toEqual(kept);
  });

  it("without the run's ledger fails as a bug of the harness: no code, nothing for the model to fix", async () => {
    const result = await send(PLAN);
    expect(result.code).toBeUndefined();
    expect(result).toMatchObject({
      ok: false,
      content:
        "Error: update_plan failed: no run ledger in the tool context (a bug in the harness)",
    });
  });

  it("changes nothing in the workspace, so it runs beside a read in one batch, without approval", async () => {
    await writeFile(join(workspace.root(), "cart.mjs"), "export const total = 1;\n");
    const ledger = await openLedger();
    const approver = vi.fn<Approver>(async () => "declined");
    const tools = agentTools(approver);
    const calls = [
      { id: "call_read", function: { name: "read_file", arguments: '{"path":"cart.mjs"}' } },
      {
        id: "call_plan",
        function: { name: "update_plan", arguments: JSON.stringify({ steps: PLAN }) },
      },
    ];
    const log: string[] = [];
    const results = await runToolBatch(calls, {
      run: async (call) => {
        log.push(`start ${call.function.name}`);
        const result = await runToolCall(tools, call, { ...workspace.context(), ledger });
        log.push(`end ${call.function.name}`);
        return result;
      },
      effectOf: (name) => tools.find((tool) => tool.name === name)?.effect,
      signal: new AbortController().signal,
      stopReason: () => "",
    });
    await ledger.close();
    expect(results.map((r) => r.ok)).toEqual([true, true]);
    expect(log.slice(0, 2)).toEqual(["start read_file", "start update_plan"]);
    expect(approver).not.toHaveBeenCalled();
  });

  it("costs 85 tokens on every request, schema and description", () => {
    expect(countToolTokens([toOpenAITool(updatePlanTool)])).toBe(85);
  });
});
