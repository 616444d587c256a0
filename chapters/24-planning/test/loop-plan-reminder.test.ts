// The loop holds the model to its own plan: an answer given while steps are still pending or in
// progress is sent back, at most twice a run. The reminder's text is what the model reads, so it is
// pinned here, and so is its trace in the ledger.
import { parseScript, type Script } from "@build-agent/shared/offline-model";
import { afterEach, describe, expect, it } from "vitest";
import { RunLedger } from "../src/ledger/run-ledger.ts";
import { MAX_PLAN_REMINDERS, remindOfPlan } from "../src/loop/plan-reminder.ts";
import { summaryLines } from "../src/loop/run-summary.ts";
import type { PlanStep } from "../src/plan/plan.ts";
import { loopFixture, type LoopFixture } from "./loop-harness.ts";
import { useTempWorkspace } from "./tool-test-workspace.ts";

const REMINDER = [
  "Your plan still has 2 open steps:",
  "- Fix the coupon in total() (in_progress)",
  "- Run the check again (pending)",
  "Finish them before you answer. If one is already done, mark it done with update_plan; if you cannot do it, mark it blocked and say why in your answer.",
].join("\n");

const PLAN: PlanStep[] = [
  { step: "Read src/cart.mjs", status: "done" },
  { step: "Fix the coupon in total()", status: "in_progress" },
  { step: "Run the check again", status: "pending" },
];
const withStatus = (status: PlanStep["status"]) => PLAN.map((s) => ({ ...s, status }));

describe("remindOfPlan", () => {
  const workspace = useTempWorkspace();
  const open = () => RunLedger.open(workspace.root(), { task: "t", model: "m" });

  it("lists the open steps, records the reminder, and stops after two", async () => {
    const ledger = await open();
    await ledger.recordPlan(PLAN);
    const first = await remindOfPlan(ledger);
    expect(first).toEqual({
      message: REMINDER,
      notice: "plan: 2 steps still open; reminding the model (1 of 2)",
    });
    expect((await remindOfPlan(ledger))?.notice).toBe(
      "plan: 2 steps still open; reminding the model (2 of 2)",
    );
    expect(await remindOfPlan(ledger)).toBeUndefined();
    await ledger.close();
    const reminders = ledger.events().filter((e) => e.type === "plan_reminder");
    expect(reminders).toHaveLength(MAX_PLAN_REMINDERS);
    expect(reminders[0]).toMatchObject({
      open: ["Fix the coupon in total()", "Run the check again"],
    });
  });

  it("lets the run end without a plan, with every step done, or with the rest blocked", async () => {
    const ledger = await open();
    expect(await remindOfPlan(ledger)).toBeUndefined();
    await ledger.recordPlan(withStatus("done"));
    expect(await remindOfPlan(ledger)).toBeUndefined();
    // A blocked step is closed: the model said why it cannot do it.
    await ledger.recordPlan([PLAN[0]!, { step: "Ask about VAT", status: "blocked" }]);
    expect(await remindOfPlan(ledger)).toBeUndefined();
    await ledger.close();
    expect(ledger.events().some((e) => e.type === "plan_reminder")).toBe(false);
  });

  it("says 1 open step in the singular", async () => {
    const ledger = await open();
    await ledger.recordPlan([PLAN[0]!, { step: "Run the check again", status: "pending" }]);
    const reminder = await remindOfPlan(ledger);
    await ledger.close();
    expect(reminder?.message.split("\n").slice(0, 2)).toEqual([
      "Your plan still has 1 open step:",
      "- Run the check again (pending)",
    ]);
  });
});

// Scripts written here, so each test shows the whole conversation it needs.
const planCall = (id: string, steps: PlanStep[]) => ({
  id,
  name: "update_plan",
  arguments: { steps },
});
function script(steps: unknown[]): Script {
  return parseScript(
    { name: "plan-test", description: "Scripted test (offline model, no AI)", steps },
    "this test",
  );
}
const answer = (content: string, expect?: object) => ({ expect, reply: { content } });

let fixture: LoopFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

describe("the loop and the plan", () => {
  it("sends an answer with open steps back to them, and ends once the plan is done", async () => {
    fixture = await loopFixture(
      script([
        { reply: { toolCalls: [planCall("call_plan", PLAN)] } },
        answer("Done."),
        {
          expect: {
            lastMessageRole: "user",
            lastMessageIncludes: "Your plan still has 2 open steps",
          },
          reply: { toolCalls: [planCall("call_plan_done", withStatus("done"))] },
        },
        answer("Finished."),
      ]),
    );
    const notices: string[] = [];
    const run = await fixture.run({ events: { onNotice: (line) => notices.push(line) } });

    expect(run.outcome).toMatchObject({ reason: "done", answer: "Finished." });
    const users = run.outcome.conversation.history.filter((m) => m.role === "user");
    expect(users.at(-1)).toEqual({ role: "user", content: REMINDER });
    expect(notices).toEqual(["plan: 2 steps still open; reminding the model (1 of 2)"]);
    const types = run.ledger.events().map((e) => e.type);
    expect(types.filter((t) => t === "plan" || t === "plan_reminder")).toEqual([
      "plan",
      "plan_reminder",
      "plan",
    ]);
  });

  it("reminds at most twice, then ends the run as done with the plan shown open", async () => {
    fixture = await loopFixture(
      script([
        { reply: { toolCalls: [planCall("call_plan", PLAN)] } },
        answer("Done."),
        answer("Done, really.", { lastMessageIncludes: "Your plan still has 2 open steps" }),
        answer("Done, I said.", { lastMessageIncludes: "Your plan still has 2 open steps" }),
      ]),
    );
    const run = await fixture.run();

    expect(run.outcome).toMatchObject({ reason: "done", answer: "Done, I said." });
    const reminders = run.ledger.events().filter((e) => e.type === "plan_reminder");
    expect(reminders).toHaveLength(2);
    expect(summaryLines(run.outcome, run.ledger, run.notes)).toContain(
      "plan: 1 of 3 done; open: Fix the coupon in total(), Run the check again",
    );
  });

  it("ends at the first answer when the open steps are blocked", async () => {
    const blocked: PlanStep[] = [PLAN[0]!, { step: "Ask about VAT", status: "blocked" }];
    fixture = await loopFixture(
      script([
        { reply: { toolCalls: [planCall("call_plan", blocked)] } },
        answer("Blocked: the VAT rules are not in the repository."),
      ]),
    );
    const run = await fixture.run();
    expect(run.outcome).toMatchObject({ reason: "done" });
    expect(run.ledger.plan()).toEqual(blocked);
    expect(run.ledger.events().some((e) => e.type === "plan_reminder")).toBe(false);
  });
});
