// The engine at one size (100,000 lines, 200 hunks; --quick: 10,000 and 50): ours is parse + apply
// in this process, warm, given the file's text, as apply_patch runs it inside the agent. The
// reference is GNU patch, a process that reads the file and writes the result (`-o`), applying the
// same change as a unified diff; it has no in-process form, so its figure includes its start-up
// (about a millisecond). git apply (a process, patching in place) and jsdiff's applyPatch (in
// process, like ours) are extra columns, and our CLI bundle as a process against GNU patch.
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

/** The engine target: ours in process at most twice GNU patch's process CPU. */
export const ENGINE_LIMIT = 2;

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
  if (hasProgram("patch")) {
    const command = ["patch", "-s", "-r", "-", "-o", "out.ts", FILE_NAME, "change.diff"];
    contenders.push({ name: "patch", setup: restore, run: inDir(command) });
  }
  if (hasProgram("git")) {
    contenders.push({ name: "git", setup: restore, run: inDir(["git", "apply", "change.diff"]) });
  }
  for (const c of contenders.filter((c) => c.name !== "ours" && c.name !== "jsdiff")) {
    c.setup?.();
    await c.run();
    const produced = readFileSync(join(dir, c.name === "patch" ? "out.ts" : FILE_NAME), "utf8");
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
    "Engine vs GNU patch",
    `parse + apply in process, against GNU patch (process), ${size}`,
    ours,
    "patch",
    "GNU patch",
    ENGINE_LIMIT,
  );
  versus(
    "Engine vs git apply",
    `parse + apply in process, against git apply (process), ${size}`,
    ours,
    "git",
    "git apply",
  );
  versus(
    "Engine vs jsdiff",
    `parse + apply in process, against jsdiff applyPatch (in process), ${size}`,
    ours,
    "jsdiff",
    "jsdiff",
  );
  versus(
    "CLI vs GNU patch",
    `CLI bundle (process), against GNU patch (process), ${size}`,
    stats.get("cli")!,
    "patch",
    "GNU patch",
  );
  return { rows, data: { lines, hunks, fileBytes: before.length, ...Object.fromEntries(stats) } };
}
