import { describe, expect, it } from "vitest";
import { BudgetTracker, parseDuration } from "../src/loop/budgets.ts";

function tracker(budgets: { maxSteps?: number; maxTokens?: number; maxTimeMs?: number }) {
  let now = 1_000;
  const clock = { advance: (ms: number) => (now += ms) };
  const t = new BudgetTracker(
    { maxSteps: 100, maxTokens: 1_000_000, maxTimeMs: 60_000, ...budgets },
    () => now,
  );
  return { t, clock };
}

describe("budgets", () => {
  it("has room until a budget is spent", () => {
    const { t } = tracker({});
    t.recordModelCall(500);
    expect(t.exceeded()).toBeUndefined();
  });

  it("stops after max steps, counting failed model calls too", () => {
    const { t } = tracker({ maxSteps: 2 });
    t.recordModelCall(0); // a failed call: no usage, still a step
    expect(t.exceeded()).toBeUndefined();
    t.recordModelCall(120);
    expect(t.exceeded()).toEqual({
      budget: "steps",
      message: "step budget used up: 2 of 2 model calls (raise it with --max-steps)",
    });
  });

  it("stops when the tokens are used up", () => {
    const { t } = tracker({ maxTokens: 1000 });
    t.recordModelCall(600);
    t.recordModelCall(600);
    expect(t.exceeded()).toEqual({
      budget: "tokens",
      message: "token budget used up: 1200 of 1000 tokens (raise it with --max-tokens)",
    });
  });

  it("stops when the wall time is up, and says how much is left before that", () => {
    const { t, clock } = tracker({ maxTimeMs: 30_000 });
    clock.advance(10_000);
    expect(t.remainingMs()).toBe(20_000);
    clock.advance(20_000);
    expect(t.remainingMs()).toBe(0);
    expect(t.exceeded()).toEqual({
      budget: "time",
      message: "time budget used up: 30s of 30s (raise it with --max-time)",
    });
  });

  it("parses --max-time as seconds or minutes", () => {
    expect(parseDuration("90")).toBe(90_000);
    expect(parseDuration("90s")).toBe(90_000);
    expect(parseDuration("5m")).toBe(300_000);
    expect(parseDuration("0")).toBeUndefined();
    expect(parseDuration("soon")).toBeUndefined();
  });
});
