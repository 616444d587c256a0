// node --import tsx bench/engine-child.ts DIR
//
// One size of the scaling benchmark, in a process of its own so its peak memory is its own. Reads
// DIR/big.ts and DIR/change.patch (written by bench/engine-case.ts), applies the patch once, and
// prints one JSON line: the peak resident memory before reading anything (Node, tsx and the
// engine's modules) and after that first run. Then, for each "run" line on stdin, it applies the
// patch again and prints that run's CPU and wall time, so the parent can interleave these runs
// with GNU patch's.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { FILE_NAME } from "./engine-case.ts";
import { loadEngine } from "./engine.ts";
import { timeInProcess } from "./measure.ts";

export interface ChildReady {
  baselineRssKb: number;
  peakRssKb: number;
}

const dir = process.argv[2];
if (dir === undefined) throw new Error("usage: engine-child.ts DIR");
const engine = await loadEngine();
// maxRSS is the peak so far, in KB (Linux ru_maxrss).
const baselineRssKb = process.resourceUsage().maxRSS;
const before = readFileSync(join(dir, FILE_NAME), "utf8");
const patch = readFileSync(join(dir, "change.patch"), "utf8");
const result = engine.parseAndApply(before, patch);
const ready: ChildReady = { baselineRssKb, peakRssKb: process.resourceUsage().maxRSS };
if (result !== readFileSync(join(dir, "after.ts"), "utf8")) {
  throw new Error(`engine result differs from the expected file in ${dir}`);
}
process.stdout.write(JSON.stringify(ready) + "\n");

for await (const line of createInterface({ input: process.stdin })) {
  if (line !== "run") break;
  const sample = await timeInProcess(() => engine.parseAndApply(before, patch));
  process.stdout.write(JSON.stringify(sample) + "\n");
}
