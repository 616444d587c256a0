import { mkdir, readdir } from "node:fs/promises";
import { join, posix } from "node:path";
import { agentFolder } from "../fs/agent-folder.ts";
import { newRunId } from "../fs/run-id.ts";
import { JsonlAppender, readJsonl } from "./jsonl-file.ts";
import { LedgerEvent } from "./ledger-events.ts";
import type { RunEndEvent, RunStartEvent, TokenUsage } from "./ledger-events.ts";

// The RunLedger is the harness's record of one run: what the agent read,
// what it wrote, which tools and model calls happened. Tools never write to
// it; the harness does, around each tool call. That is what makes it
// trustworthy: the apply_patch guard takes its preconditions from here, not
// from anything the model says.

export const RUNS_DIR = join(".agent", "runs");

export interface ChangedFile {
  path: string;
  status: "added" | "modified" | "deleted";
  // Hash before the run's first write (absent for an added file).
  before_sha256?: string;
  // Hash after the run's last write (absent for a deleted file).
  after_sha256?: string;
}

export interface UsageTotals {
  model_calls: number;
  // Calls whose usage the server did not report; the token sums leave them out.
  unreported_calls: number;
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
}

export interface ToolCallRecord {
  tool: string;
  callId?: string;
  outcome: "ok" | "error";
  code?: string;
}

// What a file looked like to this run: the hash the agent may rely on, and
// the run's first and last write for the changed-files list.
interface FileState {
  known?: string;
  written: boolean;
  original?: string;
  current?: string;
}

export class RunLedger {
  readonly runId: string;
  readonly cwd: string;
  private readonly history: LedgerEvent[] = [];
  private readonly files = new Map<string, FileState>();
  private writer?: JsonlAppender;
  private mutationRevision = 0;
  private torn = false;

  private constructor(cwd: string, runId: string) {
    this.cwd = cwd;
    this.runId = runId;
  }

  // Starts a new run: creates `.agent/runs/<runId>.jsonl` and records run_start.
  static async open(cwd: string, info: { task: string; model: string }): Promise<RunLedger> {
    const ledger = new RunLedger(cwd, newRunId());
    await agentFolder(cwd); // refuses a symlinked .agent/, which would put the ledger elsewhere
    await mkdir(join(cwd, RUNS_DIR), { recursive: true });
    ledger.writer = await JsonlAppender.create(ledgerPath(cwd, ledger.runId));
    await ledger.record({
      type: "run_start",
      time: now(),
      run_id: ledger.runId,
      task: info.task,
      model: info.model,
      cwd,
    });
    return ledger;
  }

  // Replays a finished (or crashed) run from its file; a torn last line is dropped (`tornTail`).
  // It can still append (undo marks the run it reverted): the torn bytes are cut off first.
  static async load(cwd: string, runId: string): Promise<RunLedger> {
    const problem = runIdProblem(runId);
    if (problem) throw new Error(problem);
    const path = ledgerPath(cwd, runId);
    const contents = await readJsonl(path).catch((error: unknown) => {
      if (isNotFound(error)) {
        throw new Error(
          `No run "${runId}" in ${join(cwd, RUNS_DIR)}. List the runs there and pass one of their ids.`,
        );
      }
      throw error;
    });
    const ledger = new RunLedger(cwd, runId);
    ledger.torn = contents.tornTail;
    contents.values.forEach((value, index) => {
      const parsed = LedgerEvent.safeParse(value);
      if (!parsed.success) {
        throw new Error(
          `${path}:${index + 1} is not a ledger event (${parsed.error.issues[0]?.message}). Move the file aside to continue.`,
        );
      }
      ledger.apply(parsed.data);
    });
    if (ledger.history[0]?.type !== "run_start") {
      throw new Error(
        `${path} does not begin with a run_start event. Move the file aside to continue.`,
      );
    }
    ledger.reopen = () => JsonlAppender.reopen(path, contents.validLength);
    return ledger;
  }

  private reopen?: () => Promise<JsonlAppender>;

  get path(): string {
    return ledgerPath(this.cwd, this.runId);
  }

  get start(): RunStartEvent {
    const first = this.history[0];
    if (first?.type !== "run_start") throw new Error("ledger has no run_start event");
    return first;
  }

  get end(): RunEndEvent | undefined {
    return this.history.find((event): event is RunEndEvent => event.type === "run_end");
  }

  // True when `undo` has reverted this run.
  get undone(): boolean {
    return this.history.some((event) => event.type === "run_undone");
  }

  // True when the file ended in a line cut off by a crash (it was dropped).
  get tornTail(): boolean {
    return this.torn;
  }

  // Counts the agent's file writes; any write makes earlier observations stale.
  get revision(): number {
    return this.mutationRevision;
  }

  events(): readonly LedgerEvent[] {
    return [...this.history];
  }

  recordRead(path: string, sha256: string, options: { full: boolean }): Promise<void> {
    return this.record({
      type: "file_read",
      time: now(),
      path: normalizePath(path),
      sha256,
      full: options.full,
    });
  }

  // `before` is absent for a new file, `after` for a deleted one.
  recordWrite(path: string, hashes: { before?: string; after?: string }): Promise<void> {
    return this.record({
      type: "file_written",
      time: now(),
      path: normalizePath(path),
      before_sha256: hashes.before,
      after_sha256: hashes.after,
      revision: this.mutationRevision + 1,
    });
  }

  recordToolCall(call: ToolCallRecord): Promise<void> {
    return this.record({
      type: "tool_call",
      time: now(),
      tool: call.tool,
      call_id: call.callId,
      outcome: call.outcome,
      code: call.code,
    });
  }

  recordModelCall(call: { model: string; usage: TokenUsage | null }): Promise<void> {
    return this.record({ type: "model_call", time: now(), model: call.model, usage: call.usage });
  }

  markUndone(files: string[]): Promise<void> {
    return this.record({ type: "run_undone", time: now(), files });
  }

  // Records why the run stopped and closes the file.
  async finish(reason: string): Promise<void> {
    await this.record({ type: "run_end", time: now(), reason });
    await this.close();
  }

  async close(): Promise<void> {
    await this.writer?.close();
    this.writer = undefined;
    this.reopen = undefined;
  }

  // The hash the agent may assume is on disk: its last full read of the file
  // or its own last write. Undefined when it never saw the whole file, or when
  // its last write deleted it. This is apply_patch's precondition.
  lastKnownHash(path: string): string | undefined {
    return this.files.get(normalizePath(path))?.known;
  }

  // Files whose content differs from before the run, in order of first write.
  // A file written and then restored to its old bytes is not listed.
  changedFiles(): ChangedFile[] {
    const changed: ChangedFile[] = [];
    for (const [path, state] of this.files) {
      if (!state.written || state.original === state.current) continue;
      const status =
        state.original === undefined
          ? "added"
          : state.current === undefined
            ? "deleted"
            : "modified";
      changed.push({ path, status, before_sha256: state.original, after_sha256: state.current });
    }
    return changed;
  }

  usage(): UsageTotals {
    const totals: UsageTotals = {
      model_calls: 0,
      unreported_calls: 0,
      input_tokens: 0,
      output_tokens: 0,
      total_tokens: 0,
    };
    for (const event of this.history) {
      if (event.type !== "model_call") continue;
      totals.model_calls += 1;
      if (event.usage === null) {
        totals.unreported_calls += 1;
        continue;
      }
      totals.input_tokens += event.usage.input_tokens;
      totals.output_tokens += event.usage.output_tokens;
    }
    totals.total_tokens = totals.input_tokens + totals.output_tokens;
    return totals;
  }

  toolCalls(): ToolCallRecord[] {
    return this.history.flatMap((event) =>
      event.type === "tool_call"
        ? [{ tool: event.tool, callId: event.call_id, outcome: event.outcome, code: event.code }]
        : [],
    );
  }

  // Validates, updates the in-memory view at once (so the next question sees
  // it), then appends durably. Callers await it before the next step.
  private async record(event: LedgerEvent): Promise<void> {
    const valid = LedgerEvent.parse(event);
    if (this.end && valid.type !== "run_undone") {
      throw new Error(`Run ${this.runId} has ended; it cannot record ${valid.type}.`);
    }
    if (!this.writer && this.reopen) this.writer = await this.reopen();
    if (!this.writer)
      throw new Error(`Run ${this.runId}'s ledger is closed; it cannot record ${valid.type}.`);
    this.apply(valid);
    await this.writer.append(valid);
  }

  private apply(event: LedgerEvent): void {
    this.history.push(event);
    if (event.type === "file_read" && event.full) {
      this.fileState(event.path).known = event.sha256;
    }
    if (event.type === "file_written") {
      const state = this.fileState(event.path);
      if (!state.written) state.original = event.before_sha256;
      state.written = true;
      state.current = event.after_sha256;
      // The agent's own write counts as a read: it knows the bytes it wrote.
      state.known = event.after_sha256;
      this.mutationRevision = event.revision;
    }
  }

  private fileState(path: string): FileState {
    let state = this.files.get(path);
    if (!state) {
      state = { written: false };
      this.files.set(path, state);
    }
    return state;
  }
}

export interface RunSummary {
  runId: string;
  task: string;
  model: string;
  startedAt: string;
  // Absent when the run crashed before it could record its end.
  endReason?: string;
  changedFiles: ChangedFile[];
  undone: boolean;
}

// Every run recorded in the workspace, oldest first. A ledger that cannot be read (a crash at its
// start, a hand edit) must not hide the others: it is left out, and `damaged` says why.
export async function listRuns(cwd: string, damaged: string[] = []): Promise<RunSummary[]> {
  let names: string[];
  try {
    names = await readdir(join(cwd, RUNS_DIR));
  } catch (error) {
    if (isNotFound(error)) return [];
    throw error;
  }
  const runIds = names
    .filter((name) => name.endsWith(".jsonl"))
    .map((name) => name.slice(0, -".jsonl".length));
  const summaries: RunSummary[] = [];
  for (const runId of runIds) {
    const ledger = await RunLedger.load(cwd, runId).catch((error: Error) => {
      damaged.push(`Left out a damaged ledger: ${error.message}`);
    });
    if (!ledger) continue;
    summaries.push({
      runId,
      task: ledger.start.task,
      model: ledger.start.model,
      startedAt: ledger.start.time,
      endReason: ledger.end?.reason,
      changedFiles: ledger.changedFiles(),
      undone: ledger.undone,
    });
  }
  return summaries.sort(
    (a, b) => a.startedAt.localeCompare(b.startedAt) || a.runId.localeCompare(b.runId),
  );
}

export function ledgerPath(cwd: string, runId: string): string {
  return join(cwd, RUNS_DIR, `${runId}.jsonl`);
}

// Why `text` cannot be a run id (it names a file and a folder: "../x" is refused), or undefined.
export function runIdProblem(text: string): string | undefined {
  if (/^[A-Za-z0-9_-]+$/.test(text)) return undefined;
  return `"${text}" is not a run id. Run ids look like 20250131-142501-3f9a1c.`;
}

// Ledger keys are workspace-relative POSIX paths, so "./src/a.ts" and
// "src\\a.ts" name the same file.
export function normalizePath(path: string): string {
  return posix.normalize(path.replaceAll("\\", "/")).replace(/^\.\//, "");
}

function now(): string {
  return new Date().toISOString();
}

function isNotFound(error: unknown): boolean {
  return error instanceof Error && "code" in error && error.code === "ENOENT";
}
