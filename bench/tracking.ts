// Tracking: what a run_command costs beyond the command itself, in this process (as the agent calls
// it), against `git status --porcelain` as a process on the same tree: a git repository of 5,000
// and 20,000 committed files (--quick: 500 and 2,000). Each command is a no-op run through the
// newest chapter's trackCommand with a real RunLedger, so the time is the snapshots, backups and
// records alone. "First" is the first command of a fresh run (nothing cached yet); "later" is one
// after it in the same run, which is what almost every command of a session costs.
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { trackCommand } from "../chapters/27-repository-trust/src/commands/track-command.ts";
import type { CommandOutcome } from "../chapters/27-repository-trust/src/commands/run-command.ts";
import { RunLedger } from "../chapters/27-repository-trust/src/ledger/run-ledger.ts";
import { scratchDir, type BenchContext, type SectionResult } from "./context.ts";
import { race, timeInProcess, timeProcess, type Sample, type Stats } from "./measure.ts";
import { ms, ratio, ratioText, row, timing, times, type Row } from "./report.ts";

/** A later command: at most this many times git status's CPU. */
export const LATER_LIMIT = 25;
/** The first command of a run: at most this much CPU, in milliseconds. */
export const FIRST_LIMIT_MS = 1_500;

const FILES_PER_FOLDER = 50;
const NO_OP: CommandOutcome = {
  exitCode: 0,
  signal: null,
  timedOut: false,
  aborted: false,
  durationMs: 0,
  output: "",
};

/** `files` files of 0.3 to 3 KB, 50 to a folder, committed; .agent/ excluded, as a user would. */
function buildRepository(context: BenchContext, files: number): string {
  const root = scratchDir(context, `tracking-${files}`);
  for (let i = 0; i < files; i++) {
    const dir = join(
      root,
      `pkg-${Math.floor(i / 1000)}`,
      `mod-${Math.floor(i / FILES_PER_FOLDER)}`,
    );
    if (i % FILES_PER_FOLDER === 0) mkdirSync(dir, { recursive: true });
    const line = `export const value${i} = ${i}; // a line of generated code\n`;
    writeFileSync(join(dir, `file-${i}.ts`), line.repeat(5 + ((i * 7919) % 50)));
  }
  const git = (...args: string[]) => {
    const result = spawnSync("git", args, { cwd: root, encoding: "utf8" });
    if (result.status !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr}`);
  };
  git("init", "-q");
  writeFileSync(join(root, ".git", "info", "exclude"), ".agent/\n");
  git("add", "-A");
  git("-c", "user.name=bench", "-c", "user.email=bench@example.com", "commit", "-qm", "tree");
  return root;
}

async function openRun(root: string): Promise<RunLedger> {
  return RunLedger.open(root, { task: "bench", model: "none" });
}

/** One no-op command, timed; it must see no change, or the tree is not what the race assumes. */
async function noOp(ledger: RunLedger, root: string): Promise<Sample> {
  let changed = 0;
  const sample = await timeInProcess(async () => {
    const tracked = await trackCommand(ledger, root, "true", async () => NO_OP, "none");
    changed = tracked.changes.length + tracked.skipped;
  });
  if (changed !== 0) throw new Error(`bench: a no-op command saw ${changed} changes or skips`);
  return sample;
}

interface SizeResult {
  files: number;
  first: Stats;
  later: Stats;
  git: Stats;
}

async function measureSize(context: BenchContext, files: number): Promise<SizeResult> {
  const root = buildRepository(context, files);
  const out = scratchDir(context, `tracking-${files}-out`);
  const gitStatus = () =>
    timeProcess({
      command: ["git", "status", "--porcelain"],
      cwd: root,
      stdoutFile: join(out, "git.txt"),
    });
  // The run whose later commands are timed: its first command is done before the race.
  const session = await openRun(root);
  await noOp(session, root);
  try {
    const stats = await race(
      [
        {
          name: "first",
          run: async () => {
            // A fresh run each time: its first command caches nothing from before. Its backups
            // folder is removed afterwards, so the next one starts from the same disk.
            const ledger = await openRun(root);
            const sample = await noOp(ledger, root);
            await ledger.close();
            rmSync(join(root, ".agent", "backups", ledger.runId), { recursive: true, force: true });
            return sample;
          },
        },
        { name: "later", run: () => noOp(session, root) },
        { name: "git", run: gitStatus },
      ],
      {
        warmup: 1,
        minRounds: context.quick ? 2 : 5,
        maxRounds: context.quick ? 2 : 9,
        budgetMs: context.quick ? 5_000 : 60_000,
      },
    );
    return {
      files,
      first: stats.get("first")!,
      later: stats.get("later")!,
      git: stats.get("git")!,
    };
  } finally {
    await session.close();
  }
}

export async function measureTracking(context: BenchContext): Promise<SectionResult> {
  const sizes = context.quick ? [500, 2_000] : [5_000, 20_000];
  const results: SizeResult[] = [];
  for (const files of sizes) results.push(await measureSize(context, files));
  const rows: Row[] = [];
  for (const result of results) {
    const files = `${result.files.toLocaleString("en")} files`;
    const later = ratio(result.later, result.git);
    rows.push(
      row({
        section: "Tracking",
        measure: `a later no-op run_command's tracking (in process) against git status --porcelain, ${files}`,
        label: `later command vs git status, ${files}`,
        ours: timing(result.later),
        reference: `git status --porcelain: ${timing(result.git)}`,
        value: later.cpu,
        result: ratioText(later),
        limit: LATER_LIMIT,
        target: `≤ ${LATER_LIMIT}× CPU`,
      }),
    );
    const first = ratio(result.first, result.git);
    rows.push(
      row({
        section: "Tracking",
        measure: `the first no-op run_command of a run (in process), ${files}`,
        label: `first command, ${files}`,
        ours: timing(result.first),
        reference: `git status --porcelain: ${timing(result.git)} (${times(first.cpu)} CPU)`,
        value: result.first.cpuMedian,
        result: `CPU ${ms(result.first.cpuMedian)}`,
        limit: FIRST_LIMIT_MS,
        target: `≤ ${ms(FIRST_LIMIT_MS)} CPU`,
      }),
    );
  }
  return { rows, data: { sizes: results } };
}
