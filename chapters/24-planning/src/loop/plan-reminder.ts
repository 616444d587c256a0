import type { RunLedger } from "../ledger/run-ledger.ts";
import { openSteps, type PlanStep } from "../plan/plan.ts";

// A model that answers while its own plan still has open steps has usually stopped early: it did
// the first step, said "Done.", and forgot the rest. The loop sends it back once or twice. Not more:
// a model that cannot finish must not loop forever on reminders (the budgets would end it, but only
// after spending them); after the last reminder its answer ends the run, and the summary shows the
// plan left open.
export const MAX_PLAN_REMINDERS = 2;

/** What the loop needs from the run's ledger: the latest plan, and the reminders already sent. */
export type PlanLedger = Pick<RunLedger, "plan" | "recordPlanReminder" | "events">;

export interface PlanReminder {
  /** The user message that sends the model back to its open steps. */
  message: string;
  /** One line for the person watching. */
  notice: string;
}

/**
 * Called where the loop would end the run because the model answered without a tool call. Counts
 * from the ledger, which records the reminder before the model reads it. Undefined when the run may
 * end: no plan, nothing open, or the reminders used up.
 */
export async function remindOfPlan(ledger: PlanLedger): Promise<PlanReminder | undefined> {
  const open = openSteps(ledger.plan() ?? []);
  if (open.length === 0) return undefined;
  const sent = ledger.events().filter((event) => event.type === "plan_reminder").length;
  if (sent >= MAX_PLAN_REMINDERS) return undefined;
  await ledger.recordPlanReminder(open.map((s) => s.step));
  return {
    message: reminderText(open),
    notice: `plan: ${open.length} ${open.length === 1 ? "step" : "steps"} still open; reminding the model (${sent + 1} of ${MAX_PLAN_REMINDERS})`,
  };
}

/** The reminder the model reads: its open steps, and the three ways to close each one. */
export function reminderText(open: readonly PlanStep[]): string {
  return [
    `Your plan still has ${open.length === 1 ? "1 open step" : `${open.length} open steps`}:`,
    ...open.map((s) => `- ${s.step} (${s.status})`),
    "Finish them before you answer. If one is already done, mark it done with update_plan; if you cannot do it, mark it blocked and say why in your answer.",
  ].join("\n");
}
