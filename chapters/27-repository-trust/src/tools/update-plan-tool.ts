import { z } from "zod";
import { PlanStatus } from "../ledger/ledger-events.ts";
import { openSteps, planProblem, trimmedSteps } from "../plan/plan.ts";
import { defineTool } from "./define-tool.ts";
import { ToolError } from "./tool-error.ts";

// The definition goes with every request: 85 tokens, 78 of them the schema alone. So the description
// says only what the name and the schema do not: the whole plan, each time. The rules (how many
// steps, how long, one in progress) come back as an error when one is broken, and cost nothing
// until then.
export const updatePlanTool = defineTool({
  name: "update_plan",
  description: "Send all steps each time.",
  // It changes nothing in the workspace, so it needs no approval and runs beside reads.
  effect: "read",
  schema: z.object({ steps: z.array(z.object({ step: z.string(), status: PlanStatus })) }),
  async execute({ steps: sent }, context) {
    const steps = trimmedSteps(sent);
    const problem = planProblem(steps);
    if (problem) throw new ToolError("invalid_plan", problem.message, problem.hint);
    // The plan lives in the ledger: without one it would be kept nowhere. The harness always gives
    // one, so this is its bug, not the model's to fix: a plain Error, with no code or hint to act on.
    if (!context.ledger) {
      throw new Error("no run ledger in the tool context (a bug in the harness)");
    }
    await context.ledger.recordPlan(steps);
    const done = steps.filter((s) => s.status === "done").length;
    const open = openSteps(steps).length;
    return {
      ok: true,
      content: `Plan saved: ${done} of ${steps.length} done, ${open} open.`,
      plan: steps,
    };
  },
});
