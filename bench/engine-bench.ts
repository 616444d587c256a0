// The engine at one size (100,000 lines, 200 hunks; --quick: 10,000 and 50), in this process, warm,
// given the file's text: parse + apply, as apply_patch runs it inside the agent, against jsdiff's
// applyPatch, which also runs inside its caller (the same change as a unified diff). Neither side
// starts, reads, hashes or writes anything: these rows compare engines, not tools. GNU patch and
// git apply are programs, so they are compared with our program, `node dist/apply-patch.mjs`:
// GNU patch in bench/cli-process.ts, net of start-up; git apply here, start-up included.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { applyPatch as jsdiffApply } from "diff";
import { scratchDir, type BenchContext, type SectionResult } from "./context.ts";
import { FILE_NAME, makeCase, writeCase } from "./engine-case.ts";
import type { Engine } from "./engine.ts";
import {
  hasProgram,
  race,
  timeInProcess,
  timeProcess,
  type Contender,
  type Stats,
} from "./measure.ts";
import { ratio, ratioText, row, timing, type Row } from "./report.ts";

export async function measureEngine(context: BenchContext, engine: Engine): Promise<SectionResult> {
  const [lines, hunks] = context.quick ? [10_000, 50] : [100_000, 200];
  const engineCase = makeCase(lines, hunks);
  const { before, after, codex, unified } = engineCase;
  const dir = scratchDir(context, "engine");
  writeCase(dir, engineCase);
  const restore = (): void => {
    writeFileSync(join(dir, FILE_NAME), before);
    rmSync(join(dir, ".agent"), { recursive: true, force: true });
  };
  const inDir = (command: string[]) => () =>
    timeProcess({ command, cwd: dir, stdoutFile: join(dir, "stdout.txt") });

  // Every contender must really produce the same file, or the comparison means nothing.
  if (engine.parseAndApply(before, codex) !== after) throw new Error("our result differs");
  if (jsdiffApply(before, unified) !== after) throw new Error("jsdiff's result differs");
  const contenders: Contender[] = [
    { name: "ours", run: () => timeInProcess(() => engine.parseAndApply(before, codex)) },
    { name: "jsdiff", run: () => timeInProcess(() => jsdiffApply(before, unified)) },
    {
      name: "cli",
      setup: restore,
      run: inDir([process.execPath, context.bundle, "change.patch"]),
    },
  ];
  if (hasProgram("git")) {
    contenders.push({ name: "git", setup: restore, run: inDir(["git", "apply", "change.diff"]) });
  }
  for (const c of contenders.filter((c) => c.name !== "ours" && c.name !== "jsdiff")) {
    c.setup?.();
    await c.run();
    const produced = readFileSync(join(dir, FILE_NAME), "utf8");
    if (produced !== after) throw new Error(`${c.name}'s result differs`);
  }

  const stats = await race(contenders, {
    warmup: context.quick ? 1 : 2,
    minRounds: context.quick ? 3 : 7,
    maxRounds: context.quick ? 3 : 21,
    budgetMs: 30_000,
  });
  const size = `${lines.toLocaleString("en")} lines, ${hunks} hunks`;
  const ours = stats.get("ours")!;
  const rows: Row[] = [];
  const versus = (
    short: string,
    measure: string,
    mine: Stats,
    name: string,
    label: string,
    limit?: number,
  ): void => {
    const reference = stats.get(name);
    const r = reference && ratio(mine, reference);
    rows.push(
      row({
        section: "Engine",
        measure,
        label: short,
        ours: timing(mine),
        reference: reference ? `${label}: ${timing(reference)}` : `${label}: not installed`,
        value: r?.cpu,
        result: r ? ratioText(r) : "not installed",
        limit,
        target: limit === undefined ? undefined : `≤ ${limit}× CPU`,
      }),
    );
  };
  versus(
    "Engine vs jsdiff",
    `the engine in process (parse + apply, the text in memory), against jsdiff applyPatch in process, ${size}`,
    ours,
    "jsdiff",
    "jsdiff",
  );
  versus(
    "CLI vs git apply",
    `node dist/apply-patch.mjs against git apply, whole processes with their start-up, ${size}`,
    stats.get("cli")!,
    "git",
    "git apply",
  );
  return { rows, data: { lines, hunks, fileBytes: before.length, ...Object.fromEntries(stats) } };
}
