// Start-up: what one call costs where starting the process is nearly everything. Against `node -e
// 0`, the least any Node program costs, in two races of their own:
// - The apply-patch CLI on a tiny patch (a one-line file), started the ways it can be: the bundle
//   (`node dist/apply-patch.mjs`, what `pnpm apply-patch` and the bin run), the TypeScript source
//   through tsx (how it ran before the bundle), and `pnpm apply-patch` itself; GNU patch and git
//   apply for scale.
// - The agent's `--help`: the bundle (`node dist/agent.mjs`, what `pnpm start` runs), the newest
//   main.ts through tsx (how `pnpm start` ran before, and how `pnpm chapter N` runs), and `pnpm
//   start -- --help` itself, net of pnpm's own start (`pnpm exec true`). Target for the bundle and
//   for `pnpm start` net of pnpm: within AGENT_LIMIT times `node -e 0`.
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildCliBundle } from "../scripts/build-cli.ts";
import { ROOT } from "../scripts/lib/chapters.ts";
import { scratchDir, type BenchContext, type SectionResult } from "./context.ts";
import { hasProgram, race, timeProcess, type Contender, type Stats } from "./measure.ts";
import { ratio, ratioText, row, times, timing, type Row } from "./report.ts";

/** The agent's start-up target: `--help` within this many times `node -e 0` CPU. */
export const AGENT_LIMIT = 5;

const TINY_PATCH = "*** Begin Patch\n*** Update File: f.txt\n@@\n-a\n+b\n*** End Patch\n";
const TINY_DIFF = "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-a\n+b\n";

export async function measureStartup(context: BenchContext): Promise<SectionResult> {
  /** A contender running in a folder of its own, where f.txt is put back before every run. */
  const contender = (name: string, command: string[]): Contender => {
    const dir = scratchDir(context, `startup-${name.replace(/\W+/g, "-")}`);
    writeFileSync(join(dir, "change.patch"), TINY_PATCH);
    writeFileSync(join(dir, "change.diff"), TINY_DIFF);
    return {
      name,
      setup: () => {
        writeFileSync(join(dir, "f.txt"), "a\n");
        rmSync(join(dir, ".agent"), { recursive: true, force: true });
      },
      run: () => timeProcess({ command, cwd: dir, stdoutFile: join(dir, "stdout.txt") }),
    };
  };
  const node = process.execPath;
  const contenders = [
    contender("node -e 0", [node, "-e", "0"]),
    contender("bundle", [node, context.bundle, "change.patch"]),
    contender("tsx", [
      node,
      "--import",
      import.meta.resolve("tsx"),
      context.cliSource,
      "change.patch",
    ]),
  ];
  // pnpm costs about two seconds of CPU a call: the full run only.
  if (!context.quick && hasProgram("pnpm")) {
    contenders.push(
      contender("pnpm", ["pnpm", "--silent", "--dir", ROOT, "apply-patch", "change.patch"]),
    );
  }
  if (hasProgram("patch"))
    contenders.push(contender("patch", ["patch", "-s", "-p1", "-i", "change.diff"]));
  if (hasProgram("git")) contenders.push(contender("git", ["git", "apply", "change.diff"]));

  const stats = await race(contenders, {
    warmup: 1,
    minRounds: context.quick ? 2 : 5,
    maxRounds: context.quick ? 2 : 11,
    budgetMs: 20_000,
  });
  const rows = [
    ...versusNode(stats, "bundle", "node dist/apply-patch.mjs, tiny patch, against node -e 0"),
    ...versusNode(
      stats,
      "tsx",
      "the CLI's source through tsx (before the bundle), against node -e 0",
    ),
    ...versusNode(stats, "pnpm", "pnpm apply-patch (pnpm, then the bundle), against node -e 0"),
  ];
  const patch = stats.get("patch");
  if (patch !== undefined) {
    const git = stats.get("git");
    const r = ratio(stats.get("bundle")!, patch);
    rows.push(
      row({
        section: "Start-up",
        measure: "node dist/apply-patch.mjs against GNU patch, tiny patch",
        ours: timing(stats.get("bundle")!),
        reference: `GNU patch: ${timing(patch)}` + (git ? `; git apply: ${timing(git)}` : ""),
        value: r.cpu,
        result: ratioText(r),
        limit: undefined,
      }),
    );
  }
  const agent = await measureAgentStartup(context);
  return {
    rows: [...rows, ...agent.rows],
    data: { ...(Object.fromEntries(stats) as Record<string, Stats>), agent: agent.data },
  };
}

/** The agent's `--help`: the bundle, tsx and `pnpm start`, against `node -e 0`. */
async function measureAgentStartup(context: BenchContext): Promise<SectionResult> {
  const bundle = join(context.scratch, "agent.mjs");
  const manifest = await buildCliBundle({ bundle: "agent", outFile: bundle });
  if (manifest === undefined) return { rows: [], data: {} };
  const dir = scratchDir(context, "startup-agent");
  const contender = (name: string, command: string[]): Contender => ({
    name,
    run: () => timeProcess({ command, cwd: dir, stdoutFile: join(dir, "stdout.txt") }),
  });
  const node = process.execPath;
  const contenders = [
    contender("node -e 0", [node, "-e", "0"]),
    contender("bundle", [node, bundle, "--help"]),
  ];
  // tsx costs over a second of CPU a start, and pnpm about one: the full run only.
  if (!context.quick) {
    const tsx = import.meta.resolve("tsx");
    contenders.push(contender("tsx", [node, "--import", tsx, manifest.entry, "--help"]));
    if (hasProgram("pnpm")) {
      const pnpm = ["pnpm", "--silent", "--dir", ROOT];
      contenders.push(contender("pnpm start", [...pnpm, "start", "--", "--help"]));
      contenders.push(contender("pnpm exec true", [...pnpm, "exec", "true"]));
    }
  }
  const stats = await race(contenders, {
    warmup: 1,
    minRounds: context.quick ? 2 : 5,
    maxRounds: context.quick ? 2 : 11,
    budgetMs: 30_000,
  });
  const base = stats.get("node -e 0")!;
  const reference = `node -e 0: ${timing(base)}`;
  const rows = [
    ...versusNode(
      stats,
      "bundle",
      "the agent's --help from its bundle (node dist/agent.mjs), against node -e 0",
      { label: "Agent start vs node", limit: AGENT_LIMIT, target: `≤ ${AGENT_LIMIT}× CPU` },
    ),
    ...versusNode(
      stats,
      "tsx",
      "the agent's --help from its source through tsx (pnpm chapter N), against node -e 0",
    ),
  ];
  const start = stats.get("pnpm start");
  const own = stats.get("pnpm exec true");
  if (start !== undefined && own !== undefined) {
    // What `pnpm start` adds to pnpm's own start, medians over medians.
    const net = (start.cpuMedian - own.cpuMedian) / base.cpuMedian;
    const netWall = (start.wallMedian - own.wallMedian) / base.wallMedian;
    rows.push(
      row({
        section: "Start-up",
        measure: "pnpm start -- --help net of pnpm's own start (pnpm exec true), against node -e 0",
        label: "pnpm start vs node",
        ours: `pnpm start -- --help: ${timing(start)}`,
        reference: `pnpm exec true: ${timing(own)}; ${reference}`,
        value: net,
        result: `${times(net)} CPU, ${times(netWall)} wall`,
        limit: AGENT_LIMIT,
        target: `≤ ${AGENT_LIMIT}× CPU`,
      }),
    );
  }
  return { rows, data: Object.fromEntries(stats) as Record<string, Stats> };
}

/** One row: contender `name` of a race against that race's `node -e 0`; none if it did not run. */
function versusNode(
  stats: Map<string, Stats>,
  name: string,
  measure: string,
  target: { label: string; limit: number; target: string } | { limit?: undefined } = {},
): Row[] {
  const ours = stats.get(name);
  const base = stats.get("node -e 0")!;
  if (ours === undefined) return [];
  const r = ratio(ours, base);
  return [
    row({
      section: "Start-up",
      measure,
      ours: timing(ours),
      reference: `node -e 0: ${timing(base)}`,
      value: r.cpu,
      result: ratioText(r),
      limit: undefined,
      ...target,
    }),
  ];
}
