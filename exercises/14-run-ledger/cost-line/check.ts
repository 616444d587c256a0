// Exercise "A cost line": RunLedger.cost({ inputPerMTok, outputPerMTok }) is what the run's model
// calls cost in dollars, from the ledger's model_call events, and null when any call's usage was
// not reported (unknown is not zero).
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

interface Prices {
  inputPerMTok: number;
  outputPerMTok: number;
}
interface Ledger {
  recordModelCall(call: {
    model: string;
    usage: { input_tokens: number; output_tokens: number } | null;
  }): Promise<void>;
  cost?: (prices: Prices) => number | null;
  close(): Promise<void>;
}
interface LedgerModule {
  RunLedger: { open(cwd: string, info: { task: string; model: string }): Promise<Ledger> };
}

const PRICES: Prices = { inputPerMTok: 3, outputPerMTok: 15 };

export default async function check(chapterDir: string): Promise<void> {
  const { RunLedger } = (await import(
    pathToFileURL(join(chapterDir, "src/ledger/run-ledger.ts")).href
  )) as LedgerModule;
  const cwd = await mkdtemp(join(tmpdir(), "cost-line-"));
  const ledger = await RunLedger.open(cwd, { task: "t", model: "m" });
  try {
    assert.equal(typeof ledger.cost, "function", "RunLedger has no cost(prices) method yet");
    const cost = (prices: Prices) => ledger.cost!(prices);
    assert.equal(cost(PRICES), 0, "a run without model calls costs nothing");

    await ledger.recordModelCall({
      model: "m",
      usage: { input_tokens: 200_000, output_tokens: 10_000 },
    });
    await ledger.recordModelCall({
      model: "m",
      usage: { input_tokens: 300_000, output_tokens: 30_000 },
    });
    // 500,000 input tokens at $3 per million, 40,000 output tokens at $15 per million.
    const expected = 0.5 * 3 + 0.04 * 15;
    const got = cost(PRICES);
    assert.ok(
      got !== null && Math.abs(got - expected) < 1e-9,
      `two calls with 500k input and 40k output tokens at $3 / $15 per million cost $${expected}; got ${got}`,
    );

    await ledger.recordModelCall({ model: "m", usage: null });
    assert.equal(
      cost(PRICES),
      null,
      "a model call without reported usage makes the cost unknown (null), not smaller",
    );
  } finally {
    await ledger.close();
    await rm(cwd, { recursive: true, force: true });
  }
}
