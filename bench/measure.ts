// How pnpm bench measures: CPU time and wall time of one run, for code in this process and for a
// child process, and a race that interleaves the contenders so a burst of load on this shared
// machine hits all of them alike.
//
// CPU is the figure the targets are judged on: another program busy on the same cores stretches
// wall time but barely moves CPU time. Wall time is reported beside it, because it is what a user
// waits for (ripgrep, for one, spreads its work over both cores).
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { platform } from "node:os";

export interface Sample {
  cpuMs: number;
  wallMs: number;
}

export interface Stats {
  cpuMedian: number;
  cpuMin: number;
  wallMedian: number;
  wallMin: number;
  samples: number;
}

/**
 * One run of code in this process. process.cpuUsage() is getrusage(RUSAGE_SELF): every thread of
 * the process, so the libuv pool threads that read files for search_text, and the garbage
 * collector's helpers, are counted too.
 */
export async function timeInProcess(run: () => unknown): Promise<Sample> {
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  await run();
  const wallMs = Number(process.hrtime.bigint() - start) / 1e6;
  const used = process.cpuUsage(cpu);
  return { cpuMs: (used.user + used.system) / 1000, wallMs };
}

export interface ProcessRun {
  /** Program and arguments. */
  command: string[];
  cwd: string;
  /** Where the program's stdout goes (a file, not /dev/null: ripgrep stops early on /dev/null). */
  stdoutFile: string;
  /** The exit status that counts as success; anything else throws, with the program's stderr. */
  status?: number;
}

// Node cannot read a child's resource usage. Bash's `time` keyword can: it takes getrusage
// (RUSAGE_CHILDREN) before and after the command and prints the difference, user and system CPU,
// and the wall time, to the millisecond. So each sample is one `bash -c` whose own start-up is
// outside the measured part. A process's figure includes its start-up (exec, dynamic linking,
// Node's boot): that is what a call costs whoever makes it.
const TIMED = `TIMEFORMAT='%3R %3U %3S'
{ time "$@" </dev/null >"$BENCH_STDOUT" 2>"$BENCH_STDERR" ; } 2>&1
echo "status $?"`;

/** One run of a program, timed by bash. */
export function timeProcess(run: ProcessRun): Sample {
  const stderrFile = `${run.stdoutFile}.stderr`;
  const result = spawnSync("bash", ["-c", TIMED, "bench", ...run.command], {
    cwd: run.cwd,
    encoding: "utf8",
    env: { ...process.env, BENCH_STDOUT: run.stdoutFile, BENCH_STDERR: stderrFile },
  });
  const match = /(\d+\.\d+) (\d+\.\d+) (\d+\.\d+)\nstatus (\d+)\s*$/.exec(result.stdout);
  if (match === null) throw new Error(`bench: could not time ${run.command.join(" ")}`);
  const status = Number(match[4]);
  if (status !== (run.status ?? 0)) {
    const stderr = readFileSync(stderrFile, "utf8");
    throw new Error(`${run.command.join(" ")} exited ${status}: ${stderr}`);
  }
  const [wall, user, system] = [match[1], match[2], match[3]].map((s) => Number(s) * 1000);
  return { cpuMs: user! + system!, wallMs: wall! };
}

/** Peak resident memory of one run of a program, in KB, from GNU time; undefined without it. */
export function peakRssKb(command: string[], cwd: string): number | undefined {
  const result = spawnSync("/usr/bin/time", ["-f", "%M", ...command], {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "ignore", "pipe"],
  });
  const kb = Number(result.stderr?.trim().split("\n").at(-1));
  return result.error === undefined && Number.isFinite(kb) ? kb : undefined;
}

export interface Contender {
  name: string;
  /** Untimed work before each run, e.g. putting back the file the last run patched. */
  setup?: () => void;
  run: () => Sample | Promise<Sample>;
}

export interface RaceOptions {
  /** Untimed runs of each contender first: JIT compilation, page cache, lazy loading. */
  warmup: number;
  minRounds: number;
  maxRounds: number;
  /** Stop adding rounds (once minRounds are done) when the race has taken this long. */
  budgetMs: number;
}

/**
 * Runs every contender once per round, starting each round with the next contender (ABC, BCA,
 * CAB, ...) so none always runs first or last, and returns each one's statistics.
 */
export async function race(
  contenders: Contender[],
  options: RaceOptions,
): Promise<Map<string, Stats>> {
  const once = async (contender: Contender): Promise<Sample> => {
    contender.setup?.();
    return contender.run();
  };
  for (let i = 0; i < options.warmup; i++) for (const c of contenders) await once(c);
  const samples = new Map<string, Sample[]>(contenders.map((c) => [c.name, []]));
  const started = performance.now();
  for (let round = 0; round < options.maxRounds; round++) {
    if (round >= options.minRounds && performance.now() - started > options.budgetMs) break;
    for (let i = 0; i < contenders.length; i++) {
      const contender = contenders[(round + i) % contenders.length]!;
      samples.get(contender.name)!.push(await once(contender));
    }
  }
  return new Map([...samples].map(([name, list]) => [name, summarise(list)]));
}

export function summarise(samples: Sample[]): Stats {
  const cpu = samples.map((s) => s.cpuMs);
  const wall = samples.map((s) => s.wallMs);
  return {
    cpuMedian: median(cpu),
    cpuMin: Math.min(...cpu),
    wallMedian: median(wall),
    wallMin: Math.min(...wall),
    samples: samples.length,
  };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * The exponent k in time ∝ size^k: the least-squares slope of log(time) against log(size).
 * 1 is linear, 2 quadratic, 0 independent of the size.
 */
export function scalingExponent(sizes: number[], times: number[]): number {
  const xs = sizes.map(Math.log);
  const ys = times.map(Math.log);
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
  const my = ys.reduce((a, b) => a + b, 0) / ys.length;
  let num = 0;
  let den = 0;
  xs.forEach((x, i) => {
    num += (x - mx) * (ys[i]! - my);
    den += (x - mx) ** 2;
  });
  return num / den;
}

/** Whether a program is installed, so a missing reference becomes "not installed", not a crash. */
export function hasProgram(name: string): boolean {
  return spawnSync("bash", ["-c", `command -v ${name}`], { stdio: "ignore" }).status === 0;
}

/**
 * CPU time of this process and of every child it has waited for, in ms: what a section of the bench
 * costs the machine. Linux's /proc/self/stat has both (in clock ticks, 10 ms); elsewhere, this
 * process only.
 */
export function cpuWithChildren(): number {
  if (platform() === "linux") {
    // The fields after the command name, which is in parentheses and may hold spaces.
    const stat = readFileSync("/proc/self/stat", "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // utime, stime, cutime, cstime are fields 14 to 17 of the line, 12 to 15 after the name.
    const ticks = fields.slice(11, 15).reduce((sum, field) => sum + Number(field), 0);
    return ticks * 10;
  }
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
}
