// A plan's rules, and what the model reads when it breaks one: what is wrong (the message) and what
// to send instead (the hint). The texts are an API, so each one is pinned here.
import { describe, expect, it } from "vitest";
import { openSteps, planProblem, trimmedSteps, type PlanStep } from "../src/plan/plan.ts";

const PLAN: PlanStep[] = [
  { step: "Run the check to see what fails", status: "done" },
  { step: "Fix the coupon in total()", status: "in_progress" },
  { step: "Run the check again", status: "pending" },
];

const pending = (count: number): PlanStep[] =>
  Array.from({ length: count }, (_, i) => ({ step: `Step ${i + 1}`, status: "pending" }));

describe("the plan's rules", () => {
  it("accepts 1 to 12 different steps of up to 120 characters, with at most one in progress", () => {
    expect(planProblem(PLAN)).toBeUndefined();
    expect(planProblem(pending(12))).toBeUndefined();
    expect(planProblem([{ step: "x".repeat(120), status: "pending" }])).toBeUndefined();
    // Measured as kept: trimmed.
    expect(planProblem([{ step: ` ${"x".repeat(120)}  `, status: "pending" }])).toBeUndefined();
  });

  it.each<[string, PlanStep[], string, string]>([
    [
      "no steps",
      [],
      "The plan has no steps.",
      "Send 1 to 12 steps; a task of one step needs no plan.",
    ],
    [
      "13 steps",
      pending(13),
      "The plan has 13 steps; at most 12 are allowed.",
      "Merge small steps into bigger ones and send the whole plan again.",
    ],
    [
      "a step without text",
      [PLAN[0]!, { step: "  ", status: "pending" }],
      "Step 2 has no text.",
      "Say what the step does, or leave it out, and send the whole plan again.",
    ],
    [
      "a step of two lines",
      [PLAN[0]!, { step: "Fix total()\nthen run the check", status: "pending" }],
      "Step 2 has a line break; a step is one line.",
      "Write it on one line, or make it two steps, and send the whole plan again.",
    ],
    [
      "a step with a Unicode line separator",
      [{ step: "Fix total()\u2028Run the check", status: "pending" }],
      "Step 1 has a line break; a step is one line.",
      "Write it on one line, or make it two steps, and send the whole plan again.",
    ],
    [
      "a step too long",
      [{ step: "x".repeat(121), status: "pending" }],
      "Step 1 has 121 characters; at most 120 are allowed.",
      "Shorten it and send the whole plan again.",
    ],
    [
      "the same step twice",
      [PLAN[0]!, { step: "Run the check to see what fails ", status: "pending" }],
      'The step "Run the check to see what fails" appears twice.',
      "Merge the two or tell them apart, and send the whole plan again.",
    ],
    [
      "two steps in progress",
      [
        { step: "Run the check", status: "in_progress" },
        { step: " Fix total()", status: "in_progress" },
      ],
      '2 steps are in_progress ("Run the check", "Fix total()"); at most one step may be.',
      "Mark the others pending or done and send the whole plan again.",
    ],
  ])("refuses %s, saying what to send instead", (_what, steps, message, hint) => {
    expect(planProblem(steps)).toEqual({ message, hint });
  });

  it("keeps each step trimmed, so the rules and the record read the same text", () => {
    expect(trimmedSteps([{ step: "  Fix total()\t", status: "pending" }])).toEqual([
      { step: "Fix total()", status: "pending" },
    ]);
  });

  it("counts pending and in-progress steps as open; done and blocked ones are closed", () => {
    const blocked: PlanStep = { step: "Ask about VAT", status: "blocked" };
    expect(openSteps([...PLAN, blocked]).map((s) => s.step)).toEqual([
      "Fix the coupon in total()",
      "Run the check again",
    ]);
  });
});
