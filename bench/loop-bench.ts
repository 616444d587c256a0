// Loop: what a step of our Agent Loop costs, with the real ledger, tools and compaction check, at
// 50, 200 and 800 messages of conversation, against a bare SDK loop with the same fake model,
// measured by bench/loop-overhead.ts (see there).
import type { BenchContext, SectionResult } from "./context.ts";
import { scratchDir } from "./context.ts";
import { measureLoopOverhead } from "./loop-overhead.ts";
import { ms, ratio, ratioText, row, timing } from "./report.ts";

/**
 * Our step may cost at most 3× the CPU of a bare SDK loop's, at every size. Issue 11 set 2× for
 * the loop with its ledger and tool stubbed out. Real, they add work the bare loop has no part of:
 * three ledger events written and flushed to disk per step, the file's SHA-256 and its path checked
 * against symlinks, every new message counted for the budget. Those are what undo, the hash guard
 * and compaction stand on, about 5 to 20 ms of CPU per step against a model call of seconds. What
 * the target guards is the harness's growth: a step that re-read the history, as issue 11 found
 * (5.4× at 200 messages), would pass 3× long before 800 messages.
 */
export const LOOP_LIMIT = 3;

export async function measureLoop(context: BenchContext): Promise<SectionResult> {
  const sizes = context.quick ? [4, 8, 12] : [50, 200, 800];
  const points = await measureLoopOverhead({
    sizes,
    window: context.quick ? 2 : 10,
    // Each round is a run of some 400 steps per side, whose disk flushes make it slow in wall time:
    // three rounds, each figure the median of three means of ten steps.
    rounds: context.quick ? 1 : 3,
    workspace: scratchDir(context, "loop-workspace"),
  });
  return {
    rows: points.map((point) => {
      const r = ratio(point.ours, point.bare);
      return row({
        section: "Loop",
        measure: `a step at ${point.messages} messages (ledger, tools, compaction check), against a bare SDK loop`,
        label: `Loop step at ${point.messages} messages`,
        ours: `${timing(point.ours)} per step`,
        reference: `bare SDK loop: ${timing(point.bare)} per step`,
        value: r.cpu,
        result: `${ratioText(r)}, +${ms(point.ours.cpuMedian - point.bare.cpuMedian)} CPU per step`,
        limit: LOOP_LIMIT,
        target: `≤ ${LOOP_LIMIT}× CPU`,
      });
    }),
    data: { sizes, points },
  };
}
