// Scaling, memory, and the command-line tool as users run it.
//
// The engine in process: parse + apply over a sweep of file sizes (10k, 100k, 1M lines at 200
// hunks) and of hunk counts (50, 200, 400 at 100k lines). Each size runs in a child process of its
// own (bench/engine-child.ts), warm, given the file's text: no start-up, no reading, hashing or
// writing. Its runs are interleaved with GNU patch's on the same files, and the scaling exponent is
// the log-log slope of its CPU time against the size: 1 is linear. These rows are about the
// engine's algorithm; they say nothing about what a call of the tool costs.
//
// The tool: at 100k and 1M lines with 200 hunks, `node dist/apply-patch.mjs` and GNU patch as
// whole processes (bench/cli-process.ts), CPU and peak memory, each net of its own start-up. Those
// are the rows with the targets.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { measureCliProcess, netCpu, type CliPoint } from "./cli-process.ts";
import { scratchDir, type BenchContext, type SectionResult } from "./context.ts";
import type { ChildReady } from "./engine-child.ts";
import { FILE_NAME, makeCase, writeCase } from "./engine-case.ts";
import {
  hasProgram,
  peakRssKb,
  race,
  scalingExponent,
  timeProcess,
  type Contender,
  type Sample,
  type Stats,
} from "./measure.ts";
import { mb, ms, row, times, type Row } from "./report.ts";

/** Linear, with room for noise: anything near 2 is quadratic. */
export const EXPONENT_LIMIT = 1.2;

/** The tool's CPU time, net of start-up, at most three times GNU patch's, also net. */
export const CLI_CPU_LIMIT = 3;

/**
 * What a run of the tool may hold at its peak beyond what it holds on a tiny patch, in file sizes:
 * the bytes read (1×), their decoded text (1×), and the engine's index and everything else.
 */
export const MEMORY_LIMIT = 3;

export interface ScalingPoint {
  lines: number;
  hunks: number;
  fileBytes: number;
  ours: Stats;
  patch: Stats | undefined;
  oursBaselineRssKb: number;
  oursPeakRssKb: number;
  patchPeakRssKb: number | undefined;
}

export async function measureScaling(context: BenchContext): Promise<SectionResult> {
  const lineSizes = context.quick ? [2_000, 5_000, 10_000] : [10_000, 100_000, 1_000_000];
  const hunkSizes = context.quick ? [10, 20, 40] : [50, 200, 400];
  const [fixedLines, fixedHunks] = context.quick ? [5_000, 20] : [100_000, 200];
  const sizes = [
    ...lineSizes.map((lines) => ({ lines, hunks: fixedHunks })),
    ...hunkSizes.map((hunks) => ({ lines: fixedLines, hunks })),
  ].filter((s, i, all) => all.findIndex((o) => o.lines === s.lines && o.hunks === s.hunks) === i);

  const points: ScalingPoint[] = [];
  for (const size of sizes) points.push(await measurePoint(context, size.lines, size.hunks));
  // --quick: sizes where GNU patch's work is still more than its start-up, so the ratio means something.
  const cliSizes = context.quick ? [20_000, 50_000] : [100_000, 1_000_000];
  const cliPoints: CliPoint[] = [];
  for (const lines of cliSizes) cliPoints.push(await measureCliProcess(context, lines, fixedHunks));
  const find = (lines: number, hunks: number): ScalingPoint =>
    points.find((p) => p.lines === lines && p.hunks === hunks)!;
  const byLines = lineSizes.map((lines) => find(lines, fixedHunks));
  const byHunks = hunkSizes.map((hunks) => find(fixedLines, hunks));

  const exponentRow = (
    label: string,
    measure: string,
    xs: number[],
    sweep: ScalingPoint[],
  ): Row => {
    const ours = scalingExponent(
      xs,
      sweep.map((p) => p.ours.cpuMedian),
    );
    const patch = sweep.every((p) => p.patch !== undefined)
      ? scalingExponent(
          xs,
          sweep.map((p) => p.patch!.cpuMedian),
        )
      : undefined;
    return row({
      section: "Scaling",
      measure: `the engine in process, ${measure}`,
      label,
      ours: sweep.map((p) => `${p.ours.cpuMedian.toFixed(1)}`).join(" → ") + " ms CPU",
      reference:
        patch === undefined
          ? "GNU patch: not installed"
          : `GNU patch: ${sweep.map((p) => p.patch!.cpuMedian.toFixed(1)).join(" → ")} ms CPU, exponent ${patch.toFixed(2)}`,
      value: ours,
      result: `exponent ${ours.toFixed(2)}`,
      limit: EXPONENT_LIMIT,
      target: `≤ ${EXPONENT_LIMIT}`,
    });
  };
  const thousands = (n: number): string => (n >= 1e6 ? `${n / 1e6}M` : `${n / 1e3}k`);
  const rows = [
    exponentRow(
      "Scaling exponent in lines",
      `exponent in lines (${lineSizes.map(thousands).join(", ")} lines, ${fixedHunks} hunks)`,
      lineSizes,
      byLines,
    ),
    exponentRow(
      "Scaling exponent in hunks",
      `exponent in hunks (${hunkSizes.join(", ")} hunks, ${thousands(fixedLines)} lines)`,
      hunkSizes,
      byHunks,
    ),
    ...cliPoints.map((p) => cliRow(p, thousands(p.lines))),
    ...cliPoints.map((p) => memoryRow(p, thousands(p.lines))),
  ];
  return { rows, data: { points, cliPoints, lineSizes, hunkSizes, fixedLines, fixedHunks } };
}

function cliRow(point: CliPoint, lines: string): Row {
  const net = netCpu(point);
  const raw = point.patch && point.cli.cpuMedian / point.patch.cpuMedian;
  // At a size where GNU patch's time is all start-up, there is no work of its own to compare with.
  const ratio = net.patch === undefined || net.patch <= 0 ? undefined : net.ours / net.patch;
  return row({
    section: "CLI",
    measure: `node dist/apply-patch.mjs against GNU patch, whole processes, ${lines} lines (${mb(point.fileBytes / 1024)}), ${point.hunks} hunks, CPU net of each one's start-up`,
    label: `CLI vs GNU patch, ${lines} lines`,
    ours: `CPU ${ms(point.cli.cpuMedian)} (wall ${ms(point.cli.wallMedian)}), start-up ${ms(point.cliStartup.cpuMedian)}: net ${ms(net.ours)}`,
    reference:
      point.patch === undefined || net.patch === undefined
        ? "GNU patch: not installed"
        : `GNU patch: CPU ${ms(point.patch.cpuMedian)} (wall ${ms(point.patch.wallMedian)}), start-up ${ms(point.patchStartup!.cpuMedian)}: net ${ms(net.patch)}`,
    value: ratio,
    result:
      net.patch === undefined
        ? "not installed"
        : ratio === undefined
          ? "GNU patch's time is all start-up at this size"
          : `${times(ratio)} CPU net of start-up (${times(raw!)} with it)`,
    limit: CLI_CPU_LIMIT,
    target: `≤ ${CLI_CPU_LIMIT}× CPU`,
  });
}

function memoryRow(point: CliPoint, lines: string): Row {
  const fileKb = point.fileBytes / 1024;
  const { cliPeakRssKb: peak, cliStartupRssKb: startup } = point;
  const grown = peak === undefined || startup === undefined ? undefined : peak - startup;
  return row({
    section: "Memory",
    measure: `peak RSS of node dist/apply-patch.mjs, ${lines} lines (${mb(fileKb)} file), ${point.hunks} hunks, net of its start-up`,
    label: `CLI memory, ${lines} lines`,
    ours:
      grown === undefined
        ? "not measured (no /usr/bin/time)"
        : `${mb(peak!)} peak, ${mb(startup!)} on a tiny patch: + ${mb(grown)} for the file`,
    reference:
      point.patchPeakRssKb === undefined
        ? "GNU patch: not measured"
        : `GNU patch: ${mb(point.patchPeakRssKb)} peak`,
    value: grown === undefined ? undefined : grown / fileKb,
    result: grown === undefined ? "not measured" : `${(grown / fileKb).toFixed(1)}× the file size`,
    limit: MEMORY_LIMIT,
    target: `≤ ${MEMORY_LIMIT}× the file`,
  });
}

async function measurePoint(
  context: BenchContext,
  lines: number,
  hunks: number,
): Promise<ScalingPoint> {
  const dir = scratchDir(context, `scaling-${lines}-${hunks}`);
  const engineCase = makeCase(lines, hunks);
  writeCase(dir, engineCase);
  const fileBytes = engineCase.before.length;
  const patchCommand = ["patch", "-s", "-r", "-", "-o", "out.ts", FILE_NAME, "change.diff"];
  const havePatch = hasProgram("patch");
  const child = await EngineChild.start(dir);
  try {
    const contenders: Contender[] = [{ name: "ours", run: () => child.run() }];
    if (havePatch) {
      contenders.push({
        name: "patch",
        run: () =>
          timeProcess({ command: patchCommand, cwd: dir, stdoutFile: join(dir, "out.txt") }),
      });
    }
    const big = lines >= 1_000_000;
    const stats = await race(contenders, {
      warmup: 1,
      minRounds: context.quick ? 2 : 3,
      maxRounds: context.quick ? 2 : big ? 5 : 9,
      budgetMs: big ? 15_000 : 8_000,
    });
    return {
      lines,
      hunks,
      fileBytes,
      ours: stats.get("ours")!,
      patch: stats.get("patch"),
      oursBaselineRssKb: child.ready.baselineRssKb,
      oursPeakRssKb: child.ready.peakRssKb,
      patchPeakRssKb: havePatch ? peakRssKb(patchCommand, dir) : undefined,
    };
  } finally {
    child.stop();
  }
}

/** bench/engine-child.ts, answering one line per "run" it is sent. */
class EngineChild {
  private constructor(
    private readonly process: ChildProcessWithoutNullStreams,
    private readonly replies: AsyncIterator<string>,
    readonly ready: ChildReady,
  ) {}

  static async start(dir: string): Promise<EngineChild> {
    const script = fileURLToPath(new URL("./engine-child.ts", import.meta.url));
    const child = spawn(process.execPath, ["--import", import.meta.resolve("tsx"), script, dir]);
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const replies = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const first = await replies.next();
    if (first.done === true) throw new Error(`engine child failed: ${stderr}`);
    return new EngineChild(child, replies, JSON.parse(first.value) as ChildReady);
  }

  async run(): Promise<Sample> {
    this.process.stdin.write("run\n");
    const reply = await this.replies.next();
    if (reply.done === true) throw new Error("engine child stopped");
    return JSON.parse(reply.value) as Sample;
  }

  stop(): void {
    this.process.stdin.end();
  }
}
