import { backUpFile, recordInManifest, type BackupRecord } from "../patch/backups.ts";
import {
  snapshotWorkspace,
  type FileChange,
  type WorkspaceSnapshot,
} from "./workspace-snapshot.ts";

/**
 * Undo for commands. A patch names its files before it writes them; a command does not, and what it
 * will write cannot be known in advance. So every file of the snapshot is backed up before each
 * command, into the run's backup folder. The cost is visible: the first command of a run copies up
 * to SNAPSHOT_LIMITS.maxTotalBytes into .agent/backups/; later commands find most backups there
 * already (backUpFile keeps the first one, the bytes from before the run). A file past the caps is
 * neither hashed nor backed up: undo cannot restore what a command did to it.
 */
export interface BackedUpSnapshot extends WorkspaceSnapshot {
  /** Workspace-relative path → the backup's path inside the backup folder. */
  backups: Map<string, string>;
  /** Workspace-relative path → its permission bits, so undo brings a deleted script back executable. */
  modes: Map<string, number>;
}

// Hashes the workspace and backs up each file it hashed (the same bytes). A full disk stops
// here: a command undo could not reverse is not run. A file that cannot be backed up for
// another reason (its backup's longer path is over the system's limit) is skipped instead.
export async function snapshotWithBackups(
  root: string,
  backupDir: string,
  tracked: Iterable<string> = [],
): Promise<BackedUpSnapshot> {
  const backups = new Map<string, string>();
  const modes = new Map<string, number>();
  const failed = new Map<string, string>();
  const snapshot = await snapshotWorkspace(
    root,
    undefined,
    async (relative, bytes, mode) => {
      modes.set(relative, mode);
      await backUpFile(backupDir, relative, bytes).then(
        (backup) => backups.set(relative, backup),
        (error: NodeJS.ErrnoException) => {
          if (error.code === "ENOSPC" || error.code === "EDQUOT") throw error;
          failed.set(relative, error.code ?? error.message);
        },
      );
    },
    tracked,
  );
  for (const [relative, code] of failed) {
    snapshot.hashes.delete(relative);
    snapshot.skipped.add(relative);
    snapshot.problems.push(`${relative}: could not be backed up (${code})`);
  }
  return { ...snapshot, backups, modes };
}

/**
 * Appends a command's changes to the run's manifest, in the format undo reads: previous hash and
 * backup for a changed or deleted file, previous null for a created one (undo removes it). Undo
 * restores only files whose hash is still the command's, so it never overwrites an edit made since.
 */
export async function recordCommandBackups(
  backupDir: string,
  runId: string,
  before: BackedUpSnapshot,
  changes: readonly FileChange[],
  unfinished: string,
): Promise<void> {
  const records: BackupRecord[] = changes.map((change) => ({
    path: change.path,
    previous_sha256: change.before,
    backup: change.before === null ? null : (before.backups.get(change.path) ?? null),
    sha256: change.after,
    mode: before.modes.get(change.path),
  }));
  await recordInManifest(backupDir, runId, records, { replaces: unfinished });
}

// Before the command runs: every file backed up, as unchanged so far, in a group marked
// `unfinished`. Should the harness be killed mid-command, undo finds the backups through it.
export async function recordUnfinished(
  backupDir: string,
  runId: string,
  before: BackedUpSnapshot,
  key: string,
): Promise<void> {
  const records: BackupRecord[] = [...before.hashes].map(([path, hash]) => ({
    path,
    previous_sha256: hash,
    backup: before.backups.get(path) ?? null,
    sha256: hash,
    mode: before.modes.get(path),
  }));
  await recordInManifest(backupDir, runId, records, { unfinished: key });
}
