import { randomUUID } from "node:crypto";
import path from "node:path";
import { agentFolder } from "../fs/agent-folder.ts";
import type { RunLedger } from "../ledger/run-ledger.ts";
import { recordInManifest } from "../patch/backups.ts";
import { packBefore, recordCommandBackups } from "./command-backups.ts";
import type { CommandOutcome } from "./run-command.ts";
import { compareSnapshots, snapshotWorkspace, SNAPSHOT_LIMITS } from "./workspace-snapshot.ts";
import type { FileChange, WorkspaceSnapshot } from "./workspace-snapshot.ts";

export type { FileChange } from "./workspace-snapshot.ts";

export interface TrackedCommand {
  outcome: CommandOutcome;
  changes: FileChange[];
  /** Files past the snapshot's caps, before or after: their changes are unknown. */
  skipped: number;
  /** What the run could not see or record about this command, one line each (the model reads them). */
  notices: string[];
}

/** Per run: its latest snapshot (the next one's stat cache), and the last one in before.pack. */
const runs = new WeakMap<RunLedger, { latest?: WorkspaceSnapshot; packed?: WorkspaceSnapshot }>();

// Runs a command with its side effects recorded: snapshot the workspace (and pack what undo needs
// should the harness be killed), run, snapshot again, back up what changed, and write it to the
// manifest and the ledger. A runner that throws started nothing (runCommand rejects only when the
// process could not start): the throw passes through. Once the command has run, nothing throws:
// what could not be recorded (a full disk) is said in the notices, for the model and the ledger.
export async function trackCommand(
  ledger: RunLedger,
  root: string,
  command: string,
  run: () => Promise<CommandOutcome>,
  sandbox: string,
  limits = SNAPSHOT_LIMITS,
): Promise<TrackedCommand> {
  const backupDir = path.join(await agentFolder(root), "backups", ledger.runId);
  const state = runs.get(ledger) ?? {};
  runs.set(ledger, state);
  const before = await snapshotWorkspace(root, limits, state.latest);
  const unfinished = randomUUID();
  await packBefore(backupDir, before, state.packed, unfinished).catch((error: Error) => {
    throw new Error(
      `The command was not run: backing up the workspace failed (${error.message}), and a command undo could not reverse is not run.`,
    );
  });
  state.packed = before;
  const outcome = await run().catch(async (error: unknown) => {
    // It never started: nothing for undo to take back.
    await recordInManifest(backupDir, ledger.runId, [], { replaces: unfinished });
    throw error;
  });
  const after = (state.latest = await snapshotWorkspace(root, limits, before));
  const leftOut: string[] = [];
  const changes = compareSnapshots(before, after, leftOut);
  const skipped = new Set([...before.skipped, ...after.skipped]);
  const notices = gapNotices(skipped, leftOut, [...before.problems, ...after.problems]);
  // Should this fail (a full disk), the unfinished group stays: undo takes it for a killed command.
  await recordCommandBackups(backupDir, before, changes, unfinished).catch((error: Error) =>
    notices.push(`Its changes could not be saved for undo (${error.message}).`),
  );
  await ledger
    .recordCommand({
      command,
      exit_code: outcome.exitCode,
      signal: outcome.signal,
      timed_out: outcome.timedOut,
      aborted: outcome.aborted,
      duration_ms: outcome.durationMs,
      output: outcome.output,
      sandbox,
      changes,
      skipped: skipped.size,
      ...(notices.length > 0 && { notices }),
    })
    .catch((error: Error) =>
      notices.push(`The run's ledger could not record this command (${error.message}).`),
    );
  return { outcome, changes, skipped: skipped.size, notices };
}

/** At most this many paths are named in a notice; the rest are counted. */
export const MAX_NAMED_PATHS = 5;

/** What the snapshots missed. A hostile command can cause it on purpose: the model is told. */
function gapNotices(skipped: Set<string>, leftOut: string[], problems: string[]): string[] {
  return [
    skipped.size > 0 &&
      `${skipped.size} files were not checked (past the snapshot's caps, or unreadable): what this command did to them is not recorded, and undo cannot reverse it: ${named([...skipped].sort())}.`,
    leftOut.length > 0 &&
      `This command changed a .gitignore, and ${leftOut.length} files appeared: they may be files that were ignored before, so they are not recorded as created (undo leaves them): ${named(leftOut)}.`,
    problems.length > 0 && `Problems while checking files: ${named(problems)}.`,
  ].filter((notice) => notice !== false);
}

function named(items: readonly string[]): string {
  const more = items.length - MAX_NAMED_PATHS;
  return items.slice(0, MAX_NAMED_PATHS).join(", ") + (more > 0 ? ` … and ${more} more` : "");
}
