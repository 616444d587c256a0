import type { PlanStatus } from "../ledger/ledger-events.ts";

// A plan is the model's own list of what the task takes, kept by the harness: the model sends the
// whole list each time (update_plan), the ledger keeps the latest, and the loop holds the model to
// it. The rules below are few on purpose: enough that the plan means something, not so many that
// keeping it becomes the task.

/** One step as the model sent it, and as the ledger's plan event keeps it. */
export interface PlanStep {
  step: string;
  status: PlanStatus;
}

export const MAX_PLAN_STEPS = 12;
export const MAX_STEP_LENGTH = 120;
const LINE_BREAK = /[\n\r\v\f\u0085\u2028\u2029]/;

/** What is wrong with a plan, and what to send instead: the two halves of a ToolError. */
export interface PlanProblem {
  message: string;
  hint: string;
}

/** The first rule the plan breaks (one fix at a time), or undefined when it keeps them all. */
export function planProblem(steps: readonly PlanStep[]): PlanProblem | undefined {
  const again = "and send the whole plan again.";
  if (steps.length === 0) {
    return {
      message: "The plan has no steps.",
      hint: `Send 1 to ${MAX_PLAN_STEPS} steps; a task of one step needs no plan.`,
    };
  }
  if (steps.length > MAX_PLAN_STEPS) {
    return {
      message: `The plan has ${steps.length} steps; at most ${MAX_PLAN_STEPS} are allowed.`,
      hint: `Merge small steps into bigger ones ${again}`,
    };
  }
  // Checked as stored: the tool keeps each step trimmed, so spaces around a step cost nothing.
  const texts = steps.map((s) => s.step.trim());
  const empty = texts.indexOf("");
  if (empty >= 0) {
    return {
      message: `Step ${empty + 1} has no text.`,
      hint: `Say what the step does, or leave it out, ${again}`,
    };
  }
  // A step is one line on the terminal, in the reminder and in the report; a break would split it.
  const broken = texts.findIndex((text) => LINE_BREAK.test(text));
  if (broken >= 0) {
    return {
      message: `Step ${broken + 1} has a line break; a step is one line.`,
      hint: `Write it on one line, or make it two steps, ${again}`,
    };
  }
  const long = texts.findIndex((text) => text.length > MAX_STEP_LENGTH);
  if (long >= 0) {
    return {
      message: `Step ${long + 1} has ${texts[long]!.length} characters; at most ${MAX_STEP_LENGTH} are allowed.`,
      hint: `Shorten it ${again}`,
    };
  }
  const twice = texts.find((text, i) => texts.indexOf(text) !== i);
  if (twice !== undefined) {
    return {
      message: `The step "${twice}" appears twice.`,
      hint: `Merge the two or tell them apart, ${again}`,
    };
  }
  const active = texts.filter((_, i) => steps[i]!.status === "in_progress").map((t) => `"${t}"`);
  if (active.length > 1) {
    return {
      message: `${active.length} steps are in_progress (${active.join(", ")}); at most one step may be.`,
      hint: `Mark the others pending or done ${again}`,
    };
  }
  return undefined;
}

/** The plan as it is kept: each step's text trimmed, as the rules above read it. */
export function trimmedSteps(steps: readonly PlanStep[]): PlanStep[] {
  return steps.map((s) => ({ ...s, step: s.step.trim() }));
}

/** The steps still to do: pending or in progress. A blocked step is not: the model said why. */
export function openSteps(steps: readonly PlanStep[]): PlanStep[] {
  return steps.filter((s) => s.status === "pending" || s.status === "in_progress");
}
