// pnpm bench [-- --quick] [--out DIR]
//
// How fast the newest chapter's agent is, each measure against a reference run in the same script,
// on the same machine, at the same time (interleaved: a burst of load hits both sides alike):
//   Start-up  the apply-patch CLI on a tiny patch, against `node -e 0`, GNU patch and git apply
//   Engine    parse + apply (in process) against GNU patch, git apply and jsdiff
//   Scaling   the engine over 10k..1M lines and 50..400 hunks: exponents and peak memory
//   Search    search_text and list_files against ripgrep on 20,000 files
//   Loop      the Agent Loop's time per step against a bare SDK loop
//   Tokens    the system prompt and tool schemas every model call carries
// How each is measured is written at the top of its file in bench/. Prints one table, each row
// with its target and PASS or MISS, and writes it as Markdown and JSON to bench/results/ (the
// committed reference run: latest.md, latest.json) and as a chart to docs/public/bench/latest.svg,
// which the site's reference page shows. --quick runs small sizes (a smoke test; the numbers mean
// little) and writes bench/results/quick.*; --out DIR writes there instead.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join, relative } from "node:path";
import { parseArgs } from "node:util";
import { format } from "prettier";
import { benchChart } from "../bench/chart.ts";
import type { BenchContext, SectionResult } from "../bench/context.ts";
import { measureEngine } from "../bench/engine-bench.ts";
import { loadEngine } from "../bench/engine.ts";
import { measureLoop } from "../bench/loop-bench.ts";
import { consoleTable, markdownTable, mb, ms, row, type Row } from "../bench/report.ts";
import type { ScalingPoint } from "../bench/scaling.ts";
import { measureScaling } from "../bench/scaling.ts";
import { measureSearch } from "../bench/search-bench.ts";
import { measureStartup } from "../bench/startup.ts";
import { measureTokens } from "../bench/tokens.ts";
import { buildCliBundle } from "./build-cli.ts";
import { ROOT } from "./lib/chapters.ts";
import { userArgs } from "./lib/run-chapter-module.ts";

const { values } = parseArgs({
  args: userArgs(process.argv.slice(2)),
  options: { quick: { type: "boolean" }, out: { type: "string" } },
});
const quick = values.quick === true;
const started = new Date();
const loadBefore = loadavg();
const scratch = mkdtempSync(join(tmpdir(), "agent-bench-"));

try {
  const bundle = join(scratch, "apply-patch.mjs");
  const manifest = await buildCliBundle({ outFile: bundle });
  if (manifest === undefined) throw new Error("pnpm bench: no chapter has the apply-patch CLI yet");
  const engine = await loadEngine();
  const context: BenchContext = { quick, scratch, bundle, cliSource: manifest.entry };
  console.log(
    `pnpm bench${quick ? " --quick" : ""}: chapter ${engine.chapter.slug}, ${cpus().length} cores, load ${loadBefore.map((l) => l.toFixed(2)).join(" ")}\n`,
  );

  const sections: Array<[string, () => Promise<SectionResult>]> = [
    ["startup", () => measureStartup(context)],
    ["engine", () => measureEngine(context, engine)],
    ["scaling", () => measureScaling(context)],
    ["search", () => measureSearch(context)],
    ["loop", () => measureLoop(context)],
    ["tokens", () => measureTokens(context)],
  ];
  const rows: Row[] = [];
  const data: Record<string, unknown> = {};
  let failed = false;
  for (const [name, measure] of sections) {
    const began = performance.now();
    try {
      const result = await measure();
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
    console.log(`(${name}: ${ms(performance.now() - began)})`);
  }

  console.log("\n" + consoleTable(rows));
  const meta = {
    command: `pnpm bench${quick ? " -- --quick" : ""}`,
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
  await writeResults(meta, rows, data);
  if (failed) process.exitCode = 1;
} finally {
  rmSync(scratch, { recursive: true, force: true });
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
  meta: Record<string, unknown> & { command: string; date: string; node: string; cpu: string },
  rows: Row[],
  data: Record<string, unknown>,
): Promise<void> {
  const name = quick ? "quick" : "latest";
  const dir = values.out ?? join(ROOT, "bench", "results");
  // The full run's chart goes where the site serves it; a quick or redirected run keeps its own.
  const svgPath =
    quick || values.out !== undefined
      ? join(dir, `${name}.svg`)
      : join(ROOT, "docs", "public", "bench", "latest.svg");
  mkdirSync(dir, { recursive: true });
  mkdirSync(join(svgPath, ".."), { recursive: true });

  const json = JSON.stringify({ meta, rows, ...data });
  writeFileSync(join(dir, `${name}.json`), await format(json, { parser: "json", printWidth: 100 }));
  writeFileSync(join(dir, `${name}.md`), markdown(meta, rows, data));
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
    writeFileSync(svgPath, svg);
  }
  const written = [`${name}.json`, `${name}.md`].map((f) => relative(ROOT, join(dir, f)));
  console.log(`\nwrote ${[...written, relative(ROOT, svgPath)].join(", ")}`);
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
