import { mkdir } from "node:fs/promises";
import { join, posix } from "node:path";
import { agentFolder } from "../fs/agent-folder.ts";
import { newRunId } from "../fs/run-id.ts";
import { JsonlAppender } from "./jsonl-file.ts";
import { LedgerEvent } from "./ledger-events.ts";
import type { RunEndEvent, TokenUsage } from "./ledger-events.ts";

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

  get path(): string {
    return ledgerPath(this.cwd, this.runId);
  }

  get end(): RunEndEvent | undefined {
    return this.history.find((event): event is RunEndEvent => event.type === "run_end");
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

  // Records why the run stopped and closes the file.
  async finish(reason: string): Promise<void> {
    await this.record({ type: "run_end", time: now(), reason });
    await this.close();
  }

  async close(): Promise<void> {
    await this.writer?.close();
    this.writer = undefined;
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
    if (this.end) {
      throw new Error(`Run ${this.runId} has ended; it cannot record ${valid.type}.`);
    }
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

export function ledgerPath(cwd: string, runId: string): string {
  return join(cwd, RUNS_DIR, `${runId}.jsonl`);
}

// Ledger keys are workspace-relative POSIX paths, so "./src/a.ts" and
// "src\\a.ts" name the same file.
export function normalizePath(path: string): string {
  return posix.normalize(path.replaceAll("\\", "/")).replace(/^\.\//, "");
}

function now(): string {
  return new Date().toISOString();
}
