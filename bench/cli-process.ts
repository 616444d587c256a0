// The command-line tool as users run it: `node dist/apply-patch.mjs change.patch` in a folder holding
// the file, a whole process that starts, reads, hashes, patches, backs up and writes atomically,
// against GNU patch patching the same file in place from the same change as a unified diff. Both
// are timed by bash from the child's resource usage (measure.ts), interleaved with the same two
// programs on a tiny patch of a one-line file: their start-up, which the targets subtract, so
// that what is compared is the work that grows with the file. Peak resident memory comes from GNU
// time (`%M`, the child's maxrss), for the big patch and the tiny one.
import { copyFileSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { scratchDir, type BenchContext } from "./context.ts";
import { FILE_NAME, makeCase, writeCase } from "./engine-case.ts";
import {
  hasProgram,
  median,
  peakRssKb,
  race,
  timeProcess,
  type Contender,
  type Stats,
} from "./measure.ts";

const TINY_PATCH = "*** Begin Patch\n*** Update File: f.txt\n@@\n-a\n+b\n*** End Patch\n";
const TINY_DIFF = "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-a\n+b\n";

export interface CliPoint {
  lines: number;
  hunks: number;
  fileBytes: number;
  cli: Stats;
  /** The CLI on the tiny patch: Node's start, the bundle's load, one patch of a one-line file. */
  cliStartup: Stats;
  patch?: Stats;
  patchStartup?: Stats;
  cliPeakRssKb: number | undefined;
  cliStartupRssKb: number | undefined;
  patchPeakRssKb: number | undefined;
}

/** CPU medians net of start-up; undefined without GNU patch. */
export function netCpu(point: CliPoint): { ours: number; patch?: number } {
  const ours = point.cli.cpuMedian - point.cliStartup.cpuMedian;
  if (point.patch === undefined || point.patchStartup === undefined) return { ours };
  return { ours, patch: point.patch.cpuMedian - point.patchStartup.cpuMedian };
}

export async function measureCliProcess(
  context: BenchContext,
  lines: number,
  hunks: number,
): Promise<CliPoint> {
  const dir = scratchDir(context, `cli-${lines}-${hunks}`);
  const engineCase = makeCase(lines, hunks);
  writeCase(dir, engineCase);
  const pristine = join(dir, "before.ts");
  copyFileSync(join(dir, FILE_NAME), pristine);
  const tiny = scratchDir(context, `cli-tiny-${lines}`);
  writeFileSync(join(tiny, "change.patch"), TINY_PATCH);
  writeFileSync(join(tiny, "change.diff"), TINY_DIFF);

  // Put the file back and drop the backups of the last run: every run patches the same bytes.
  const restore = (): void => {
    copyFileSync(pristine, join(dir, FILE_NAME));
    rmSync(join(dir, ".agent"), { recursive: true, force: true });
  };
  const restoreTiny = (): void => {
    writeFileSync(join(tiny, "f.txt"), "a\n");
    rmSync(join(tiny, ".agent"), { recursive: true, force: true });
  };
  const cli = [process.execPath, context.bundle, "change.patch"];
  const patch = ["patch", "-s", "-p1", "-i", "change.diff"];
  const run = (cwd: string, command: string[]) => () =>
    timeProcess({ command, cwd, stdoutFile: join(cwd, "stdout.txt") });
  const contenders: Contender[] = [
    { name: "cli", setup: restore, run: run(dir, cli) },
    { name: "cli start-up", setup: restoreTiny, run: run(tiny, cli) },
  ];
  const havePatch = hasProgram("patch");
  if (havePatch) {
    contenders.push(
      { name: "patch", setup: restore, run: run(dir, patch) },
      { name: "patch start-up", setup: restoreTiny, run: run(tiny, patch) },
    );
  }
  // Both must really produce the expected file, or the comparison means nothing.
  for (const c of contenders.filter((c) => !c.name.endsWith("start-up"))) {
    c.setup?.();
    await c.run();
    if (!readFileSync(join(dir, FILE_NAME)).equals(Buffer.from(engineCase.after))) {
      throw new Error(`${c.name}'s result differs from the expected file in ${dir}`);
    }
  }

  const big = lines >= 1_000_000;
  const stats = await race(contenders, {
    warmup: 1,
    minRounds: context.quick ? 2 : 5,
    maxRounds: context.quick ? 2 : big ? 9 : 15,
    budgetMs: big ? 20_000 : 12_000,
  });
  const rss = (setup: () => void, command: string[], cwd: string): number | undefined => {
    const runs = [0, 1, 2].map(() => {
      setup();
      return peakRssKb(command, cwd);
    });
    return runs.includes(undefined) ? undefined : median(runs as number[]);
  };
  const point: CliPoint = {
    lines,
    hunks,
    fileBytes: Buffer.byteLength(engineCase.before),
    cli: stats.get("cli")!,
    cliStartup: stats.get("cli start-up")!,
    patch: stats.get("patch"),
    patchStartup: stats.get("patch start-up"),
    cliPeakRssKb: rss(restore, cli, dir),
    cliStartupRssKb: rss(restoreTiny, cli, tiny),
    patchPeakRssKb: havePatch ? rss(restore, patch, dir) : undefined,
  };
  restore();
  return point;
}
