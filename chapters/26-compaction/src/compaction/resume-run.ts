import { realpath } from "node:fs/promises";
import { join } from "node:path";
import { sha256 } from "../fs/file-hash.ts";
import { isRunning, processStartTime } from "../fs/process-alive.ts";
import { describeFileType, readRegularFile } from "../fs/read-regular-file.ts";
import type { LedgerEvent, PlanEvent, RunStartEvent } from "../ledger/ledger-events.ts";
import { listRuns, RunLedger, RUNS_DIR, type RunSummary } from "../ledger/run-ledger.ts";
import { openSteps, type PlanStep } from "../plan/plan.ts";
import { ledgerFacts, MAX_FACT_LINES } from "./ledger-facts.ts";

// Resume starts a new run from an old run's ledger, not from its conversation (which was never
// saved): the facts, what changed on disk since, and where the plan stands. The new run has its
// own ledger, so nothing it read before counts for apply_patch: its message says to read again.

export class ResumeRefusedError extends Error {
  override name = "ResumeRefusedError";
}

export interface Resumption {
  runId: string;
  /** The original task, for the new run's run_start. */
  task: string;
  /** The new run's first user message. */
  message: string;
  /** The old run's latest plan, which the new run starts from (its reminders go on). */
  plan: PlanStep[] | undefined;
  /** Runs recorded in another folder, one line each: printed, not resumed. */
  leftOut: string[];
}

/** Checks that `runId` (default: the latest run) can be resumed and builds the new run's start. */
export async function prepareResume(cwd: string, runId?: string): Promise<Resumption> {
  // A damaged ledger is left out and named: it must not keep every other run from resuming.
  const damaged: string[] = [];
  const leftOut: string[] = [];
  const runs = await ownRuns(cwd, await listRuns(cwd, damaged), leftOut);
  const id = runId ?? runs.at(-1)?.runId;
  if (id === undefined || !runs.some((run) => run.runId === id)) {
    const recent = runs.slice(-5).reverse();
    throw new ResumeRefusedError(
      [
        id === undefined
          ? `Nothing to resume: no run is recorded in ${join(cwd, RUNS_DIR)}.`
          : `No run "${id}" in ${join(cwd, RUNS_DIR)}. ${recent.length > 0 ? "Recent runs:" : "It holds no runs."}`,
        ...recent.map((run) => `- ${run.runId} (${run.endReason ?? "no end"}): ${run.task}`),
        ...damaged,
        ...leftOut,
      ].join("\n"),
    );
  }
  const ledger = await RunLedger.load(cwd, id);
  if (ledger.undone) {
    throw new ResumeRefusedError(
      `Run ${id} was undone: its changes are gone, so there is nothing to continue. Start a new task instead.`,
    );
  }
  if (!ledger.end && stillRunning(ledger.start)) {
    throw new ResumeRefusedError(
      `Run ${id} is still running (process ${ledger.start.pid}). Wait for it to end, or stop it with Ctrl-C, then resume it.`,
    );
  }
  const events = await eventsWithEarlierRuns(cwd, ledger);
  const ended = ledger.end ? `it ended: ${ledger.end.reason}` : "it stopped without a run_end";
  const plan = events.findLast((event): event is PlanEvent => event.type === "plan")?.steps;
  return {
    runId: id,
    task: events[0]?.type === "run_start" ? events[0].task : ledger.start.task,
    message: [
      `[Resuming run ${id} (${ended}). This is a new run: files read in the old run must be read again before you patch them.]`,
      ledgerFacts(events),
      ...diskLines(await changedOnDisk(cwd, events)),
      continueLine(plan),
    ].join("\n"),
    plan,
    leftOut,
  };
}

/**
 * Only runs recorded in this workspace: a ledger that came with the files (a cloned repository's
 * `.agent/runs/`) is someone else's, and resuming it would send its task to the model as the
 * person's. A workspace that was moved since loses its runs to this too: the line says why.
 */
async function ownRuns(cwd: string, runs: RunSummary[], leftOut: string[]) {
  const here = await realpath(cwd);
  const own: RunSummary[] = [];
  for (const run of runs) {
    if ((await realpath(run.cwd).catch(() => run.cwd)) === here) own.push(run);
    else leftOut.push(`Left out run ${run.runId}: it was recorded in ${run.cwd}, not in ${here}.`);
  }
  return own;
}

/**
 * Whether the run's process still runs. Its id alone is not enough: after a crash the id may be
 * reused, and the run would look alive forever. So the start time must match too, when the run
 * recorded one (older ledgers did not: for them the id decides, as before).
 */
function stillRunning(start: RunStartEvent): boolean {
  const { pid, pid_start } = start;
  if (pid === undefined || pid === process.pid || !isRunning(pid)) return false;
  return pid_start === undefined || processStartTime(pid) === pid_start;
}

/** A resumed run's facts begin in the run it resumed: the events of the chain, oldest first. */
async function eventsWithEarlierRuns(cwd: string, ledger: RunLedger): Promise<LedgerEvent[]> {
  const events = [...ledger.events()];
  const seen = new Set([ledger.runId]);
  for (let earlier = ledger.start.resumes; earlier && !seen.has(earlier);) {
    seen.add(earlier);
    const run = await RunLedger.load(cwd, earlier).catch(() => undefined);
    if (!run) break;
    events.unshift(...run.events());
    earlier = run.start.resumes;
  }
  return events;
}

export interface DiskChange {
  path: string;
  /** "changed", "deleted", "exists again", "now a directory", "unreadable (EACCES)"… */
  status: string;
}

/**
 * Each file's last hash in the ledger (its last read, write, or change by a command; null when
 * the run deleted it) against the disk now: what someone else did since the run saw it.
 */
export async function changedOnDisk(
  cwd: string,
  events: readonly LedgerEvent[],
): Promise<DiskChange[]> {
  const last = new Map<string, string | null>();
  for (const event of events) {
    if (event.type === "file_read") last.set(event.path, event.sha256);
    if (event.type === "file_written") last.set(event.path, event.after_sha256 ?? null);
    if (event.type === "command") for (const c of event.changes) last.set(c.path, c.after);
  }
  const changes: DiskChange[] = [];
  for (const [path, hash] of last) {
    const status = await sinceRun(join(cwd, path), hash);
    if (status !== undefined) changes.push({ path, status });
  }
  return changes;
}

/**
 * What became of a file the run last saw with `hash`; undefined when nothing did. A path that is
 * now a folder or a named pipe (readRegularFile does not wait for a pipe's writer), or that cannot
 * be read, is a change to report: not a reason for resume to fail, or to hang.
 */
async function sinceRun(absolute: string, hash: string | null): Promise<string | undefined> {
  let now: string | null = null;
  try {
    const { stats, bytes } = await readRegularFile(absolute);
    if (bytes === null) return `now ${describeFileType(stats)}`;
    now = sha256(bytes);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOENT" && code !== "ENOTDIR") return `unreadable (${code ?? "error"})`;
  }
  if (now === hash) return undefined;
  return now === null ? "deleted" : hash === null ? "exists again" : "changed";
}

function diskLines(changes: DiskChange[]): string[] {
  if (changes.length === 0) return ["Files changed on disk since the run last saw them: none."];
  // Bounded like the facts: 5,000 files touched since must not make the message unsendable.
  const more = changes.length - MAX_FACT_LINES;
  return [
    "Files changed on disk since the run last saw them:",
    ...changes.slice(0, MAX_FACT_LINES).map((change) => `- ${change.path}: ${change.status}`),
    ...(more > 0 ? [`… and ${more} more`] : []),
  ];
}

function continueLine(plan: readonly PlanStep[] | undefined): string {
  // Chapter 24's open steps: a blocked step is not one to continue from, the model said why.
  const open = plan && openSteps(plan)[0];
  if (open) {
    return `Continue the plan from the first open step: "${open.step}" (${open.status}).`;
  }
  return "Continue the task from where the run stopped; check first what is already done.";
}
