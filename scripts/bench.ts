// pnpm bench [-- --quick] [--only SECTION,...] [--save [--out DIR]]
//
// How fast the newest chapter's agent is, each measure against a reference run in the same script,
// on the same machine, at the same time (interleaved: a burst of load hits both sides alike):
//   Start-up  the apply-patch CLI on a tiny patch, against `node -e 0`, GNU patch and git apply
//   Engine    parse + apply (in process) against GNU patch, git apply and jsdiff
//   Scaling   the engine over 10k..1M lines and 50..400 hunks: exponents and peak memory
//   Search    search_text and list_files against ripgrep on 20,000 files
//   Loop      a step of the agent's runTask (real ledger, tools, compaction check) at 50, 200 and
//             800 messages, against a bare SDK loop
//   Tokens    the first request's system prompt and tool schemas, as --print-prompt prices them
// How each is measured is written at the top of its file in bench/. Prints one table, each row
// with its target and PASS or MISS. Nothing is written unless --save: then the table goes as
// Markdown and JSON to bench/results/ (the committed reference run: latest.md, latest.json) and as
// a chart to docs/public/bench/latest.svg, which the site's reference page shows. --quick runs
// small sizes (a smoke test; the numbers mean little), saved as bench/results/quick.*, which git
// ignores; --out DIR saves there instead.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join, relative } from "node:path";
import { parseArgs } from "node:util";
import { benchChart } from "../bench/chart.ts";
import type { BenchContext, SectionResult } from "../bench/context.ts";
import { measureEngine } from "../bench/engine-bench.ts";
import { loadEngine, type Engine } from "../bench/engine.ts";
import { measureLoop } from "../bench/loop-bench.ts";
import { cpuWithChildren } from "../bench/measure.ts";
import { consoleTable, markdownTable, mb, ms, row, type Row } from "../bench/report.ts";
import type { ScalingPoint } from "../bench/scaling.ts";
import { measureScaling } from "../bench/scaling.ts";
import { measureSearch } from "../bench/search-bench.ts";
import { measureStartup } from "../bench/startup.ts";
import { measureTokens } from "../bench/tokens.ts";
import { measureTracking } from "../bench/tracking.ts";
import { buildCliBundle } from "./build-cli.ts";
import { ROOT } from "./lib/chapters.ts";
import { userArgs } from "./lib/run-chapter-module.ts";

type Measure = (context: BenchContext, engine: Engine) => Promise<SectionResult>;

/** The sections, in the order they run and print; a new one is one more line. */
const SECTIONS: Array<[string, Measure]> = [
  ["startup", measureStartup],
  ["engine", measureEngine],
  ["scaling", measureScaling],
  ["search", measureSearch],
  ["loop", measureLoop],
  ["tokens", measureTokens],
  ["tracking", measureTracking],
];

const USAGE = `usage: pnpm bench [-- OPTIONS]

Measures the newest chapter against reference tools run at the same time, and prints one table
with a target and PASS or MISS for each measure. Writes nothing unless --save.

  --quick          small sizes and few rounds: checks that the bench runs (the numbers mean little)
  --only A,B       run only these sections: ${SECTIONS.map(([name]) => name).join(", ")}
  --save           write the results: bench/results/latest.md and latest.json, and the chart
                   docs/public/bench/latest.svg (with --quick: bench/results/quick.*, ignored by git)
  --out DIR        with --save: write the results (and the chart) to DIR instead
  --help           print this and exit`;

const options = parseCommandLine(userArgs(process.argv.slice(2)));
if (options !== undefined) await run(options);

interface Options {
  quick: boolean;
  save: boolean;
  out: string | undefined;
  sections: Array<[string, Measure]>;
  args: string[];
}

/** The options, or undefined when there is nothing to run (--help, or a usage error). */
function parseCommandLine(args: string[]): Options | undefined {
  let values;
  try {
    values = parseArgs({
      args,
      options: {
        quick: { type: "boolean" },
        only: { type: "string" },
        save: { type: "boolean" },
        out: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    }).values;
  } catch (error) {
    return usageError((error as Error).message);
  }
  if (values.help === true) {
    console.log(USAGE);
    return undefined;
  }
  if (values.out !== undefined && values.save !== true) {
    return usageError("--out says where --save writes: add --save");
  }
  const only = values.only?.split(",").map((name) => name.trim());
  const unknown = only?.filter((name) => !SECTIONS.some(([section]) => section === name)) ?? [];
  if (unknown.length > 0) return usageError(`no section named ${unknown.join(", ")}`);
  if (only !== undefined && values.save === true && values.out === undefined) {
    // bench/results/latest.* is the reference run: part of a run must not replace it.
    return usageError(
      "--save with --only would replace the saved run with a part of it: add --out DIR",
    );
  }
  const quick = values.quick === true;
  return {
    quick,
    save: values.save === true,
    out: values.out,
    sections: SECTIONS.filter(([name]) => only === undefined || only.includes(name)),
    // The options that change what is measured, for the header and the saved results.
    args: [...(quick ? ["--quick"] : []), ...(only ? [`--only ${only.join(",")}`] : [])],
  };
}

function usageError(message: string): undefined {
  console.error(`pnpm bench: ${message}\n\n${USAGE}`);
  process.exitCode = 2;
  return undefined;
}

async function run(options: Options): Promise<void> {
  const { quick } = options;
  const started = new Date();
  const loadBefore = loadavg();
  const scratch = mkdtempSync(join(tmpdir(), "agent-bench-"));
  try {
    const bundle = join(scratch, "apply-patch.mjs");
    const manifest = await buildCliBundle({ outFile: bundle });
    if (manifest === undefined) {
      throw new Error("pnpm bench: no chapter has the apply-patch CLI yet");
    }
    const engine = await loadEngine();
    const context: BenchContext = { quick, scratch, bundle, cliSource: manifest.entry };
    const command =
      options.args.length === 0 ? "pnpm bench" : `pnpm bench -- ${options.args.join(" ")}`;
    console.log(
      `${command}: chapter ${engine.chapter.slug}, ${cpus().length} cores, load ${loadBefore.map((l) => l.toFixed(2)).join(" ")}\n`,
    );

    const rows: Row[] = [];
    const data: Record<string, unknown> = {};
    let failed = false;
    for (const [name, measure] of options.sections) {
      const began = { wall: performance.now(), cpu: cpuWithChildren() };
      try {
        const result = await measure(context, engine);
        rows.push(...result.rows);
        data[name] = result.data;
      } catch (error) {
        // One broken section still leaves the others' numbers; the exit status says it broke.
        failed = true;
        const message = (error as Error).stack ?? String(error);
        console.error(`pnpm bench: the ${name} section failed:\n${message}\n`);
        rows.push(failedRow(name, (error as Error).message));
        data[name] = { error: (error as Error).message };
      }
      // What the section cost, its child processes included: --quick runs in `pnpm test`.
      const cpu = cpuWithChildren() - began.cpu;
      console.log(`(${name}: ${ms(performance.now() - began.wall)} wall, ${ms(cpu)} CPU)`);
    }

    console.log("\n" + consoleTable(rows));
    const meta = {
      command,
      date: started.toISOString(),
      durationSeconds: Math.round((Date.now() - started.getTime()) / 1000),
      chapter: engine.chapter.slug,
      node: process.version,
      platform: `${process.platform} ${process.arch}`,
      cpu: `${cpus().length} × ${cpus()[0]?.model ?? "unknown"}`,
      loadAverage: { before: loadBefore, after: loadavg() },
      tools: {
        patch: versionOf("patch", "--version"),
        git: versionOf("git", "--version"),
        rg: versionOf("rg", "--version"),
      },
    };
    if (options.save) await writeResults(options, meta, rows, data);
    else console.log("\n(nothing written: add --save to write the results)");
    if (failed) process.exitCode = 1;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

function failedRow(section: string, message: string): Row {
  return row({
    section,
    measure: "the section failed",
    ours: "",
    reference: "",
    value: undefined,
    result: message.split("\n")[0]!.slice(0, 200),
    limit: undefined,
  });
}

function versionOf(program: string, flag: string): string {
  const result = spawnSync(program, [flag], { encoding: "utf8" });
  return result.status === 0 ? result.stdout.split("\n")[0]!.trim() : "not installed";
}

async function writeResults(
  options: Options,
  meta: Record<string, unknown> & { command: string; date: string; node: string; cpu: string },
  rows: Row[],
  data: Record<string, unknown>,
): Promise<void> {
  const name = options.quick ? "quick" : "latest";
  const dir = options.out ?? join(ROOT, "bench", "results");
  // The full run's chart goes where the site serves it; a quick or redirected run keeps its own.
  const svgPath =
    options.quick || options.out !== undefined
      ? join(dir, `${name}.svg`)
      : join(ROOT, "docs", "public", "bench", "latest.svg");
  mkdirSync(dir, { recursive: true });
  const written = [join(dir, `${name}.json`), join(dir, `${name}.md`)];

  const json = JSON.stringify({ meta, rows, ...data });
  // Prettier is loaded only here: a run that saves nothing need not pay for it.
  const { format } = await import("prettier");
  writeFileSync(written[0]!, await format(json, { parser: "json", printWidth: 100 }));
  writeFileSync(written[1]!, markdown(meta, rows, data));
  const scaling = data.scaling as
    | {
        points: ScalingPoint[];
        lineSizes: number[];
        hunkSizes: number[];
        fixedLines: number;
        fixedHunks: number;
      }
    | undefined;
  if (scaling?.points !== undefined) {
    const at = (lines: number, hunks: number): ScalingPoint =>
      scaling.points.find((p) => p.lines === lines && p.hunks === hunks)!;
    const svg = benchChart({
      rows,
      linesSweep: scaling.lineSizes.map((lines) => at(lines, scaling.fixedHunks)),
      hunksSweep: scaling.hunkSizes.map((hunks) => at(scaling.fixedLines, hunks)),
    });
    mkdirSync(join(svgPath, ".."), { recursive: true });
    writeFileSync(svgPath, svg);
    written.push(svgPath);
  }
  console.log(`\nwrote ${written.map((file) => relative(ROOT, file)).join(", ")}`);
}

function markdown(
  meta: { command: string; date: string; node: string; cpu: string },
  rows: Row[],
  data: Record<string, unknown>,
): string {
  const parts = [
    `Measured by \`${meta.command}\` on ${meta.date.slice(0, 10)}: Node ${meta.node}, ${meta.cpu}. ` +
      "Each figure is the median over interleaved runs, with the minimum in brackets; " +
      "ratios are ours over the reference (lower is better).",
    "",
    markdownTable(rows),
  ];
  const scaling = data.scaling as { points?: ScalingPoint[] } | undefined;
  if (scaling?.points !== undefined) {
    parts.push(
      "",
      "Every size of the scaling sweep (CPU medians; ours in process, GNU patch as a process):",
      "",
      "| lines | hunks | file | ours | GNU patch | ratio | ours peak RSS | GNU patch peak RSS |",
      "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
      ...scaling.points.map((p) => {
        const patch = p.patch?.cpuMedian;
        return `| ${p.lines.toLocaleString("en")} | ${p.hunks} | ${mb(p.fileBytes / 1024)} | ${ms(p.ours.cpuMedian)} | ${patch === undefined ? "—" : ms(patch)} | ${patch === undefined ? "—" : `${(p.ours.cpuMedian / patch).toFixed(1)}×`} | ${mb(p.oursPeakRssKb)} | ${p.patchPeakRssKb === undefined ? "—" : mb(p.patchPeakRssKb)} |`;
      }),
    );
  }
  return parts.join("\n") + "\n";
}
