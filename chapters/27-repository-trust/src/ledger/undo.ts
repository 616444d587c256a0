import { readFile, stat } from "node:fs/promises";
import { dirname, isAbsolute, join, posix } from "node:path";
import { z } from "zod";
import { readPack } from "../commands/command-backups.ts";
import { linkOnTheWay } from "../commands/workspace-snapshot.ts";
import { agentFolder } from "../fs/agent-folder.ts";
import { commitWrite, deleteFile, stageWrite } from "../fs/atomic-write.ts";
import { MANIFEST_NAME } from "../patch/backups.ts";
import { currentHash } from "../patch/commit-files.ts";
import { lockFiles } from "../patch/file-locks.ts";
import type { BackupRecord } from "../patch/backups.ts";
import { RunLedger, listRuns, runIdProblem } from "./run-ledger.ts";
import { sha256 } from "../fs/file-hash.ts";
import { visible } from "../terminal/visible-text.ts";

// Undo puts back what one run changed, from the backups apply_patch made before it touched each
// file. It never overwrites work it did not do: a file whose bytes are not the ones the run left
// is someone else's edit now, and the whole undo is refused before anything is written.

export interface UndoResult {
  runId: string;
  restored: string[]; // modified or deleted by the run: the old bytes are back
  removed: string[]; // created by the run: removed again
  alreadyUndone: string[]; // already as before the run (undone earlier, or put back by hand)
  damaged: string[]; // left out, not fatal: unreadable ledgers, entries in .git/ or .agent/
}

export class UndoRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UndoRefusedError";
  }
}

// What one run did to one file, folded over all its patches.
interface FileChange {
  path: string;
  original: string | null; // hash before the run's first write; null if the run created the file
  backup: string | null; // where the original bytes are, relative to the backup folder
  final: string | null; // hash after the run's last write; null if the run deleted the file
  mode?: number; // its permission bits before the run, when a command recorded them
  // A command that may have changed it never finished (the harness was killed mid-command).
  unfinished?: boolean;
  bytes?: Buffer; // the original bytes, when they came from the command's before.pack
}

type Plan = { change: FileChange; action: "restore" | "remove" | "skip"; bytes?: Buffer };

// The manifest is a file on disk like any other (a cloned repository can ship one): checked first.
const Hash = z.string().nullable();
const Entry = z.object({ path: z.string(), previous_sha256: Hash, backup: Hash, sha256: Hash });
const Mode = z.int().transform((m) => m & 0o777); // permission bits: never setuid, setgid, sticky
// A command's entry records the mode; one read from before.pack comes with its bytes.
const Moded = Entry.extend({ mode: Mode.optional(), bytes: z.instanceof(Buffer).optional() });
const Group = z.object({ files: z.array(Moded), unfinished: z.string().optional() });
const Manifest = z.object({ patches: z.array(Group) });

// Undoes `runId`, or by default the latest run that changed files and was not undone yet.
export async function undoRun(cwd: string, runId?: string): Promise<UndoResult> {
  const damaged: string[] = [];
  const id = runId ?? (await latestUndoableRun(cwd, damaged));
  const changes = await readChanges(cwd, id, damaged);
  await refuseIfUndone(cwd, id);
  // The workspace's real path, which the writers check folders against; never a symlinked .agent/.
  const folder = await agentFolder(cwd).catch((error: Error) => {
    throw new UndoRefusedError(`Nothing was undone: ${error.message}`);
  });
  const root = dirname(folder);
  // A patch's locks: an agent in another terminal cannot write between the check and the restore.
  const paths = changes.map((change) => join(root, change.path));
  const unlock = await lockFiles(join(folder, "locks"), paths).catch((error: Error) => {
    throw new UndoRefusedError(`Nothing was undone: ${error.message}`);
  });
  try {
    const plans = await Promise.all(changes.map((change) => planFile(root, id, change)));

    const conflicts = plans.flatMap((plan) => (typeof plan === "string" ? [plan] : []));
    if (conflicts.length > 0) {
      throw new UndoRefusedError(
        [
          `Cannot undo run ${id}: ${conflicts.length === 1 ? "1 file has" : `${conflicts.length} files have`} changed since the run.`,
          ...conflicts.map((line) => `- ${line}`),
          `Nothing was undone. Revert those edits first, or copy the old bytes by hand from ${join(".agent", "backups", id, "files")}.`,
        ].join("\n"),
      );
    }

    const result: UndoResult = { runId: id, restored: [], removed: [], alreadyUndone: [], damaged };
    for (const plan of plans as Plan[]) {
      await carryOut(root, plan, result).catch((error: Error) => {
        // A write that fails now (a full disk, a link swapped in since the check) stops the undo
        // with what it did: the run stays undoable, and the files done count as already undone.
        const done = [...result.restored, ...result.removed];
        throw new UndoRefusedError(
          `Undo of run ${id} stopped at ${plan.change.path}: ${error.message}\n${done.length > 0 ? `Put back so far: ${done.join(", ")}.` : "Nothing was undone."} Fix that, then undo again.`,
        );
      });
    }
    await markUndone(cwd, id, [...result.restored, ...result.removed]);
    return result;
  } finally {
    await unlock();
  }
}

// One line for the terminal, and one per ledger left out.
export function describeUndo(result: UndoResult): string {
  const parts = [
    result.restored.length > 0 ? `restored ${result.restored.join(", ")}` : "",
    result.removed.length > 0 ? `removed ${result.removed.join(", ")}` : "",
    result.alreadyUndone.length > 0 ? `already as before: ${result.alreadyUndone.join(", ")}` : "",
  ].filter(Boolean);
  const summary =
    result.restored.length + result.removed.length === 0
      ? `Nothing to undo in run ${result.runId}: ${result.alreadyUndone.join(", ")} ${result.alreadyUndone.length === 1 ? "is" : "are"} already as before the run.`
      : `Undid run ${result.runId}: ${parts.join("; ")}.`;
  return visible([summary, ...result.damaged].join("\n"), { lines: true }); // paths are the model's
}

async function latestUndoableRun(cwd: string, damaged: string[]): Promise<string> {
  const runs = await listRuns(cwd, damaged);
  const candidate = runs.filter((run) => !run.undone && run.changedFiles.length > 0).at(-1);
  if (!candidate) {
    throw new UndoRefusedError(
      [
        `Nothing to undo: no run recorded in ${join(cwd, ".agent", "runs")} changed files, or all of them were undone already.`,
        ...damaged,
      ].join("\n"),
    );
  }
  return candidate.runId;
}

async function readChanges(cwd: string, runId: string, leftOut: string[]): Promise<FileChange[]> {
  const problem = runIdProblem(runId);
  if (problem) throw new UndoRefusedError(problem);
  const manifestPath = join(cwd, ".agent", "backups", runId, MANIFEST_NAME);
  let manifest: unknown;
  try {
    manifest = JSON.parse(await readFile(manifestPath, "utf8"));
  } catch {
    throw new UndoRefusedError(
      `Cannot undo run ${runId}: ${manifestPath} is missing or unreadable, so there are no backups to restore from. Check the run id (the files in .agent/runs/ are named after them).`,
    );
  }
  const parsed = Manifest.safeParse(manifest);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new UndoRefusedError(
      `Cannot undo run ${runId}: ${manifestPath} is not a backup manifest (${issue?.path.join(".") || "(root)"}: ${issue?.message}). Nothing was undone.`,
    );
  }
  const byPath = new Map<string, FileChange>();
  // A command killed mid-way may have changed any file it found: its before.pack has them all.
  const damagedPack = "Left out what a killed command changed: its before.pack is damaged.";
  for (const group of parsed.data.patches.filter((group) => group.unfinished)) {
    const packed = await readPack(dirname(manifestPath), group.unfinished!)
      .then((files) => files.map((file) => Moded.parse(file)))
      .catch(() => void leftOut.push(damagedPack));
    group.files.push(...(packed ?? []));
  }
  const records = parsed.data.patches.flatMap((group) => group.files.map((r) => ({ ...r, group })));
  for (const record of records) {
    const path = safeRelative(record, manifestPath);
    if (/^\.(git|agent)(\/|$)/i.test(path)) {
      leftOut.push(`Left out ${path}: undo never writes in .git/ or .agent/ (hooks run code).`);
      continue;
    }
    const seen = byPath.get(path);
    // The first record holds the bytes from before the run; the last, what the run left.
    if (seen) seen.final = record.sha256;
    else
      byPath.set(path, {
        path,
        original: record.previous_sha256,
        backup: record.backup,
        final: record.sha256,
        mode: record.mode,
        bytes: record.bytes,
      });
    if (record.group.unfinished) byPath.get(path)!.unfinished = true;
  }
  const changes = [...byPath.values()].filter((c) => c.original !== c.final || c.unfinished);
  if (changes.length === 0) {
    throw new UndoRefusedError(`Nothing to undo: run ${runId} left every file as it found it.`);
  }
  return changes;
}

// A run is undone once: afterwards its files are the user's again, and their edits no conflicts.
async function refuseIfUndone(cwd: string, runId: string): Promise<void> {
  // Backups made by the command-line apply-patch have no ledger: nothing to check.
  const ledger = await RunLedger.load(cwd, runId).catch(() => undefined);
  const undone = ledger?.events().find((event) => event.type === "run_undone");
  if (undone) {
    throw new UndoRefusedError(
      `Run ${runId} was undone already (${undone.time}); there is nothing left to undo.`,
    );
  }
}

async function carryOut(root: string, plan: Plan, result: UndoResult): Promise<void> {
  const target = join(root, plan.change.path);
  if (plan.action === "restore" && plan.bytes) {
    // A file the run deleted comes back with the permissions it had (commands record them).
    const mode = (await currentMode(target)) ?? plan.change.mode;
    await commitWrite(await stageWrite(target, plan.bytes, mode));
    result.restored.push(plan.change.path);
  } else if (plan.action === "remove") {
    await deleteFile(target);
    result.removed.push(plan.change.path);
  } else if (!plan.change.unfinished) {
    // (a file a killed command did not touch is no news: it was only backed up in case)
    result.alreadyUndone.push(plan.change.path);
  }
}

// Returns the plan, or a line explaining why this file blocks the undo.
async function planFile(cwd: string, runId: string, change: FileChange): Promise<Plan | string> {
  // A command may have replaced a folder with a link (rm -rf src && ln -s ~/victim src): undo
  // would write where the link leads. It never does; the person removes the link first.
  const link = await linkOnTheWay(cwd, change.path);
  if (link !== undefined) {
    return `${change.path}: ${link} is now a symbolic link, and undo never writes through a link. Remove the link (or put the folder back), then undo again.`;
  }
  const current = await currentHash(join(cwd, change.path));
  if (current === change.original) return { change, action: "skip" };
  // What a command that never finished left is the run's work: nothing recorded what it wrote.
  if (change.unfinished) change.final = current;
  if (current !== change.final) return conflictLine(change, current);
  if (change.original === null) return { change, action: "remove" };

  const backupPath = join(cwd, ".agent", "backups", runId, ...(change.backup ?? "").split("/"));
  const bytes =
    change.bytes ??
    (change.backup === null ? undefined : await readFile(backupPath).catch(() => undefined));
  if (!bytes || sha256(bytes) !== change.original) {
    return `${change.path}: its backup ${backupPath} is missing or does not hold the old bytes (sha256 ${change.original}).`;
  }
  return { change, action: "restore", bytes };
}

function conflictLine(change: FileChange, current: string | null): string {
  if (current === null)
    return `${change.path}: the run left it in place, but it has been deleted since.`;
  if (change.final === null)
    return `${change.path}: the run deleted it, but it exists again (sha256 ${current}).`;
  return `${change.path}: the run left sha256 ${change.final}, it is now ${current}.`;
}

// A restored file keeps the permissions it has now (an executable script stays executable).
async function currentMode(path: string): Promise<number | undefined> {
  return stat(path).then(
    (info) => info.mode & 0o777, // never setuid, setgid or sticky
    () => undefined,
  );
}

// The manifest is a file on disk like any other: never let it point outside the workspace.
function safeRelative(record: BackupRecord, manifestPath: string): string {
  const path = posix.normalize(record.path.replaceAll("\\", "/"));
  if (isAbsolute(path) || path === ".." || path.startsWith("../")) {
    throw new UndoRefusedError(
      `${manifestPath} names "${record.path}", which is outside the workspace. Nothing was undone.`,
    );
  }
  return path;
}

async function markUndone(cwd: string, runId: string, files: string[]): Promise<void> {
  // Backups made by the command-line apply-patch have no ledger; nothing to mark.
  const ledger = await RunLedger.load(cwd, runId).catch(() => undefined);
  if (!ledger) return;
  await ledger.markUndone(files);
  await ledger.close();
}
