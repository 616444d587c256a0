// Exercise "No step dropped": update_plan refuses (invalid_plan) a plan that leaves out a step of
// the last plan that was not done, naming the step; a done step may go, and a refused plan leaves the
// last one in place.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

interface Step {
  step: string;
  status: string;
}
interface Ledger {
  plan(): Step[] | undefined;
  close(): Promise<void>;
}
interface LedgerModule {
  RunLedger: { open(cwd: string, start: { task: string; model: string }): Promise<Ledger> };
}
interface ToolsModule {
  runToolCall(
    tools: unknown[],
    call: { id: string; function: { name: string; arguments: string } },
    context: { cwd: string; signal: AbortSignal; ledger: Ledger },
  ): Promise<{ ok: boolean; content: string; code?: string }>;
}

const load = <T>(chapterDir: string, file: string) =>
  import(pathToFileURL(join(chapterDir, file)).href) as Promise<T>;

export default async function check(chapterDir: string): Promise<void> {
  const { RunLedger } = await load<LedgerModule>(chapterDir, "src/ledger/run-ledger.ts");
  const { runToolCall } = await load<ToolsModule>(chapterDir, "src/tools/run-tool-call.ts");
  const { updatePlanTool } = await load<{ updatePlanTool: unknown }>(
    chapterDir,
    "src/tools/update-plan-tool.ts",
  );

  const root = await mkdtemp(join(tmpdir(), "no-dropped-steps-"));
  try {
    const ledger = await RunLedger.open(root, { task: "fix the total", model: "test" });
    const send = (steps: Step[]) =>
      runToolCall(
        [updatePlanTool],
        {
          id: "call_plan",
          function: { name: "update_plan", arguments: JSON.stringify({ steps }) },
        },
        { cwd: root, signal: new AbortController().signal, ledger },
      );
    const plan = [
      { step: "Run the check to see what fails", status: "done" },
      { step: "Fix the coupon in total()", status: "in_progress" },
      { step: "Run the check again", status: "pending" },
    ];
    assert.equal((await send(plan)).ok, true, "the first plan is a good plan");

    const dropped = await send(plan.slice(0, 2));
    assert.equal(
      dropped.ok,
      false,
      'a plan without "Run the check again", which was pending, should be refused: the model may have forgotten it',
    );
    assert.equal(dropped.code, "invalid_plan", `refused as invalid_plan: ${dropped.content}`);
    assert.ok(
      dropped.content.includes("Run the check again"),
      `the error should name the step that went missing: ${dropped.content}`,
    );
    assert.deepEqual(ledger.plan(), plan, "a refused plan should leave the last plan in place");

    const withoutDone = await send(plan.slice(1));
    assert.equal(
      withoutDone.ok,
      true,
      `a step that was done may leave the plan: ${withoutDone.content}`,
    );
    await ledger.close();
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
