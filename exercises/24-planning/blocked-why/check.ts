// Exercise "Why it is blocked": a blocked step carries a short `why`, update_plan refuses a blocked
// step without one (invalid_plan), the ledger keeps it, and the run summary shows it beside the step.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

interface Step {
  step: string;
  status: string;
  why?: string;
}
interface Ledger {
  runId: string;
  plan(): Step[] | undefined;
  close(): Promise<void>;
}
interface LedgerModule {
  RunLedger: {
    open(cwd: string, start: { task: string; model: string }): Promise<Ledger>;
    load(cwd: string, runId: string): Promise<Ledger>;
  };
}
interface ToolsModule {
  runToolCall(
    tools: unknown[],
    call: { id: string; function: { name: string; arguments: string } },
    context: { cwd: string; signal: AbortSignal; ledger: Ledger },
  ): Promise<{ ok: boolean; content: string; code?: string }>;
}
interface SummaryModule {
  summaryLines(
    outcome: { reason: string; message: string | null },
    ledger: Ledger,
    notes: unknown[],
  ): string[];
}

const load = <T>(chapterDir: string, file: string) =>
  import(pathToFileURL(join(chapterDir, file)).href) as Promise<T>;

export default async function check(chapterDir: string): Promise<void> {
  const { RunLedger } = await load<LedgerModule>(chapterDir, "src/ledger/run-ledger.ts");
  const { runToolCall } = await load<ToolsModule>(chapterDir, "src/tools/run-tool-call.ts");
  const { summaryLines } = await load<SummaryModule>(chapterDir, "src/loop/run-summary.ts");
  const { updatePlanTool } = await load<{ updatePlanTool: unknown }>(
    chapterDir,
    "src/tools/update-plan-tool.ts",
  );

  const root = await mkdtemp(join(tmpdir(), "blocked-why-"));
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
    const done = { step: "Fix the coupon in total()", status: "done" };

    const unexplained = await send([done, { step: "Ask about VAT", status: "blocked" }]);
    assert.equal(
      unexplained.ok,
      false,
      "a blocked step without a why should be refused, so the person learns what stopped it",
    );
    assert.equal(
      unexplained.code,
      "invalid_plan",
      `refused as invalid_plan: ${unexplained.content}`,
    );

    const why = "the VAT rules are not in the repository";
    const explained = await send([done, { step: "Ask about VAT", status: "blocked", why }]);
    assert.equal(
      explained.ok,
      true,
      `a blocked step with a why is a good plan: ${explained.content}`,
    );
    await ledger.close();

    const replayed = await RunLedger.load(root, ledger.runId);
    assert.equal(
      replayed.plan()?.[1]?.why,
      why,
      "the ledger's plan event should keep the why (replayed from disk)",
    );
    const lines = summaryLines({ reason: "done", message: null }, replayed, []);
    const plan = lines.find((line) => line.startsWith("plan:")) ?? "(no plan: line)";
    assert.ok(
      plan.includes("Ask about VAT") && plan.includes(why),
      `the summary's plan line should show the blocked step with its why; it reads: ${plan}`,
    );
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
