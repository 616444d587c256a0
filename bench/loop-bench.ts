// Loop: what our Agent Loop adds per step over a bare SDK loop, at 200 messages of conversation,
// measured by bench/loop-overhead.ts (same fake model, same client, same messages; see there).
import { existsSync } from "node:fs";
import type { BenchContext, SectionResult } from "./context.ts";
import { ms, row, times } from "./report.ts";

interface LoopOverheadModule {
  measureLoopOverhead(options: {
    messages: number;
    steps: number;
  }): Promise<{ oursMsPerStep: number; bareMsPerStep: number }>;
}

const MODULE = new URL("./loop-overhead.ts", import.meta.url);

/** The harness may at most double what a bare SDK loop spends per step. */
export const LOOP_LIMIT = 2;

export async function measureLoop(context: BenchContext): Promise<SectionResult> {
  const messages = context.quick ? 20 : 200;
  const measure = `time per step at ${messages} messages, against a bare SDK loop`;
  if (!existsSync(MODULE)) {
    const missing = "not available yet (bench/loop-overhead.ts is not written)";
    return {
      rows: [
        row({
          section: "Loop",
          measure,
          ours: "",
          reference: "",
          value: undefined,
          result: missing,
          limit: undefined,
        }),
      ],
      data: { available: false },
    };
  }
  const { measureLoopOverhead } = (await import(MODULE.href)) as LoopOverheadModule;
  const { oursMsPerStep, bareMsPerStep } = await measureLoopOverhead({
    messages,
    steps: context.quick ? 3 : 20,
  });
  const overhead = oursMsPerStep / bareMsPerStep;
  return {
    rows: [
      row({
        section: "Loop",
        measure,
        ours: `${ms(oursMsPerStep)} wall per step`,
        reference: `bare SDK loop: ${ms(bareMsPerStep)} wall per step`,
        value: overhead,
        result: `${times(overhead)} wall, +${ms(oursMsPerStep - bareMsPerStep)} per step`,
        limit: LOOP_LIMIT,
        target: `≤ ${LOOP_LIMIT}× wall`,
      }),
    ],
    data: { available: true, messages, oursMsPerStep, bareMsPerStep },
  };
}
