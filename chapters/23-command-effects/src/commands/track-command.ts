import { randomUUID } from "node:crypto";
import path from "node:path";
import { agentFolder } from "../fs/agent-folder.ts";
import type { RunLedger } from "../ledger/run-ledger.ts";
import { recordInManifest } from "../patch/backups.ts";
import { recordCommandBackups, recordUnfinished, snapshotWithBackups } from "./command-backups.ts";
import type { CommandOutcome } from "./run-command.ts";
import { compareSnapshots, snapshotWorkspace, type FileChange } from "./workspace-snapshot.ts";

export type { FileChange } from "./workspace-snapshot.ts";

export interface TrackedCommand {
  outcome: CommandOutcome;
  changes: FileChange[];
  /** Files past the snapshot's caps, before or after: their changes are unknown. */
  skipped: number;
  /** What the run could not see or record about this command, one line each (the model reads them). */
  notices: string[];
}

/** Every path a run's snapshots have hashed: later snapshots look for them, walk or no walk. */
const trackedByRun = new WeakMap<RunLedger, Set<string>>();

/**
 * Runs a command with its side effects recorded: snapshot and back up the workspace, run, snapshot
 * again, and write what changed to the manifest (for undo) and the ledger (for the guard and the
 * run summary). A runner that throws started nothing (runCommand rejects only when the process
 * could not start), so a throw passes through with nothing recorded. Once the command has run,
 * nothing throws: what could not be recorded (a full disk) is said in the notices, which reach the
 * model and, when it can, the ledger.
 */
export async function trackCommand(
  ledger: RunLedger,
  root: string,
  command: string,
  run: () => Promise<CommandOutcome>,
  sandbox: string,
): Promise<TrackedCommand> {
  const backupDir = path.join(await agentFolder(root), "backups", ledger.runId);
  const tracked = trackedByRun.get(ledger) ?? new Set<string>();
  trackedByRun.set(ledger, tracked);
  const before = await snapshotWithBackups(root, backupDir, tracked).catch((error: Error) => {
    throw new Error(
      `The command was not run: backing up the workspace failed (${error.message}), and a command undo could not reverse is not run.`,
    );
  });
  const unfinished = randomUUID();
  await recordUnfinished(backupDir, ledger.runId, before, unfinished).catch((error: Error) => {
    throw new Error(
      `The command was not run: its backups could not be recorded (${error.message}).`,
    );
  });
  const outcome = await run().catch(async (error: unknown) => {
    // It never started: nothing for undo to take back.
    await recordInManifest(backupDir, ledger.runId, [], { replaces: unfinished });
    throw error;
  });
  const after = await snapshotWorkspace(root, undefined, undefined, before.hashes.keys());
  for (const file of [...before.hashes.keys(), ...after.hashes.keys()]) tracked.add(file);
  const leftOut: string[] = [];
  const changes = compareSnapshots(before, after, leftOut);
  const skipped = new Set([...before.skipped, ...after.skipped]);
  const notices = gapNotices(skipped, leftOut, [...before.problems, ...after.problems]);
  await recordCommandBackups(backupDir, ledger.runId, before, changes, unfinished).catch(
    (error: Error) => {
      notices.push(`Its changes could not be saved for undo (${error.message}).`);
    },
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
    .catch((error: Error) => {
      notices.push(`The run's ledger could not record this command (${error.message}).`);
    });
  return { outcome, changes, skipped: skipped.size, notices };
}

/** At most this many paths are named in a notice; the rest are counted. */
export const MAX_NAMED_PATHS = 5;

/** What the snapshots missed. A hostile command can cause it on purpose: the model is told. */
function gapNotices(skipped: Set<string>, leftOut: string[], problems: string[]): string[] {
  const notices: string[] = [];
  if (skipped.size > 0) {
    notices.push(
      `${skipped.size} files were not checked (past the snapshot's caps, or unreadable): what this command did to them is not recorded, and undo cannot reverse it: ${named([...skipped].sort())}.`,
    );
  }
  if (leftOut.length > 0) {
    notices.push(
      `This command changed a .gitignore, and ${leftOut.length} files appeared: they may be files that were ignored before, so they are not recorded as created (undo leaves them): ${named(leftOut)}.`,
    );
  }
  if (problems.length > 0) notices.push(`Problems while checking files: ${named(problems)}.`);
  return notices;
}

function named(items: readonly string[]): string {
  const more = items.length - MAX_NAMED_PATHS;
  return items.slice(0, MAX_NAMED_PATHS).join(", ") + (more > 0 ? ` … and ${more} more` : "");
}
