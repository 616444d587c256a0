// pnpm bench: how fast apply_patch's engine is, as ratios against a reference run in the same script.
//
// 1. In process: our `applyHunks` (Codex format, context matching with the whole ladder and the
//    ambiguity check) against the `diff` package's `applyPatch` (unified diff with line numbers) making
//    the same edits to the same file. Ratio = ours / reference; lower is better.
// 2. Scaling: the same edit count on a file twice as large. A linear matcher roughly doubles; a
//    quadratic one quadruples. Ratio = time(2N) / time(N).
// 3. End to end: `apply-patch` CLI process against `git apply` process on the same change (startup
//    included, which dominates: this tells a user what one call costs).
// Wall-clock numbers on a shared machine are noisy: each figure is the median of several runs, and only
// ratios are printed as results.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { applyPatch as applyUnifiedDiff, createPatch } from "diff";
import { listChapters } from "./lib/chapters.ts";

interface Engine {
  parsePatch(text: string): { operations: Array<{ kind: string; hunks?: unknown[] }> };
  applyHunks(fileText: string, hunks: never[], path: string): { text: string };
}

const newest = listChapters()
  .filter((c) => c.number >= 4)
  .at(-1);
if (newest === undefined) throw new Error("pnpm bench: no chapter with apply_patch yet");
const load = (file: string): Promise<unknown> =>
  import(pathToFileURL(join(newest.dir, "src", "patch", file)).href);
const { parsePatch } = (await load("parse-patch.ts")) as Pick<Engine, "parsePatch">;
const { applyHunks } = (await load("apply-hunks.ts")) as Pick<Engine, "applyHunks">;

/** A source file of `lines` unique lines, and `edits` one-line changes spread evenly through it. */
function makeCase(lines: number, edits: number): { before: string; after: string; codex: string } {
  const original = Array.from(
    { length: lines },
    (_, i) => `  const value${i} = compute(${i}, "item ${i}");`,
  );
  const changed = [...original];
  const hunks: string[] = [];
  for (let e = 0; e < edits; e++) {
    const at = Math.floor(((e + 0.5) * lines) / edits);
    changed[at] = `  const value${at} = computeFaster(${at}, "item ${at}");`;
    hunks.push(
      "@@",
      ` ${original[at - 2]}`,
      ` ${original[at - 1]}`,
      `-${original[at]}`,
      `+${changed[at]}`,
      ` ${original[at + 1]}`,
      ` ${original[at + 2]}`,
    );
  }
  const codex = ["*** Begin Patch", "*** Update File: big.ts", ...hunks, "*** End Patch", ""].join(
    "\n",
  );
  return { before: original.join("\n") + "\n", after: changed.join("\n") + "\n", codex };
}

function median(run: () => void, times: number): number {
  const samples: number[] = [];
  for (let i = 0; i < times; i++) {
    const start = process.hrtime.bigint();
    run();
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return samples.sort((a, b) => a - b)[Math.floor(times / 2)]!;
}

function inProcess(lines: number, edits: number): { ours: number; reference: number } {
  const { before, after, codex } = makeCase(lines, edits);
  const unified = createPatch("big.ts", before, after, "", "", { context: 2 });
  const hunks = parsePatch(codex).operations[0]!.hunks as never[];
  // Both must really produce the same file, or the comparison means nothing.
  if (applyHunks(before, hunks, "big.ts").text !== after) throw new Error("engine result differs");
  if (applyUnifiedDiff(before, unified) !== after) throw new Error("reference result differs");
  const ours = median(() => applyHunks(before, hunks, "big.ts"), 7);
  const reference = median(() => applyUnifiedDiff(before, unified), 7);
  return { ours, reference };
}

function endToEnd(lines: number, edits: number): { ours: number; reference: number } {
  const { before, after, codex } = makeCase(lines, edits);
  const unified = createPatch("big.ts", before, after, "", "", { context: 2 })
    .replace(/^--- big\.ts.*$/m, "--- a/big.ts")
    .replace(/^\+\+\+ big\.ts.*$/m, "+++ b/big.ts");
  const dir = mkdtempSync(join(tmpdir(), "bench-"));
  const cli = join(newest!.dir, "src", "apply-patch-cli.ts");
  const run = (command: string, args: string[]): void => {
    writeFileSync(join(dir, "big.ts"), before);
    const result = spawnSync(command, args, { cwd: dir, encoding: "utf8" });
    if (result.status !== 0) throw new Error(`${command} failed: ${result.stderr}`);
  };
  writeFileSync(join(dir, "change.patch"), codex);
  writeFileSync(join(dir, "change.diff"), unified);
  try {
    const ours = median(
      () => run(process.execPath, ["--import", import.meta.resolve("tsx"), cli, "change.patch"]),
      5,
    );
    const reference = median(() => run("git", ["apply", "--unsafe-paths", "change.diff"]), 5);
    return { ours, reference };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const fmt = (ms: number): string => `${ms.toFixed(2)} ms`;
console.log(`apply_patch benchmarks (chapter ${newest.slug}); medians, lower ratio is better\n`);
const sizes = [10_000, 20_000, 40_000];
const results = sizes.map((lines) => ({ lines, ...inProcess(lines, 50) }));
for (const r of results) {
  console.log(
    `in process, ${r.lines} lines, 50 hunks: ours ${fmt(r.ours)} vs jsdiff applyPatch ${fmt(r.reference)}  ratio ${(r.ours / r.reference).toFixed(2)}`,
  );
}
for (let i = 1; i < results.length; i++) {
  const [a, b] = [results[i - 1]!, results[i]!];
  console.log(
    `scaling ${a.lines} -> ${b.lines} lines: ours x${(b.ours / a.ours).toFixed(2)}, jsdiff x${(b.reference / a.reference).toFixed(2)} (linear is about x2)`,
  );
}
const e2e = endToEnd(20_000, 50);
console.log(
  `end to end, 20000 lines, 50 hunks: apply-patch CLI ${fmt(e2e.ours)} vs git apply ${fmt(e2e.reference)}  ratio ${(e2e.ours / e2e.reference).toFixed(2)}`,
);
