import path from "node:path";
import { agentFolder } from "../fs/agent-folder.ts";
import type { RunLedger } from "../ledger/run-ledger.ts";
import { recordCommandBackups, snapshotWithBackups } from "./command-backups.ts";
import type { CommandOutcome } from "./run-command.ts";
import { compareSnapshots, snapshotWorkspace, type FileChange } from "./workspace-snapshot.ts";

export type { FileChange } from "./workspace-snapshot.ts";

export interface TrackedCommand {
  outcome: CommandOutcome;
  changes: FileChange[];
  /** Files past the snapshot's caps, before or after: their changes are unknown. */
  skipped: number;
}

/**
 * Runs a command with its side effects recorded: snapshot and back up the
 * workspace, run, snapshot again, and write what changed to the manifest
 * (for undo) and the ledger (for the guard and the run summary). A runner
 * that throws started nothing (runCommand rejects only when the process
 * could not start), so a throw passes through with nothing recorded.
 */
export async function trackCommand(
  ledger: RunLedger,
  root: string,
  command: string,
  run: () => Promise<CommandOutcome>,
  sandbox: string,
): Promise<TrackedCommand> {
  const backupDir = path.join(await agentFolder(root), "backups", ledger.runId);
  // A backup that fails (a full disk) stops here: a command undo could not reverse is not run.
  const before = await snapshotWithBackups(root, backupDir);
  const outcome = await run();
  const after = await snapshotWorkspace(root);
  const changes = compareSnapshots(before, after);
  const skipped = new Set([...before.skipped, ...after.skipped]).size;
  await recordCommandBackups(backupDir, ledger.runId, before, changes);
  await ledger.recordCommand({
    command,
    exit_code: outcome.exitCode,
    signal: outcome.signal,
    timed_out: outcome.timedOut,
    aborted: outcome.aborted,
    duration_ms: outcome.durationMs,
    output: outcome.output,
    sandbox,
    changes,
    skipped,
  });
  return { outcome, changes, skipped };
}
