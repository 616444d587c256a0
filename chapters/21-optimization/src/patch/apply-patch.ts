import path from "node:path";
import { agentFolder, AgentFolderError } from "../fs/agent-folder.ts";
import { newRunId } from "../fs/run-id.ts";
import { acquireWriteLeases, recordInManifest, type BackupRecord } from "./backups.ts";
import { writeStagedFiles } from "./commit-files.ts";
import { lockFiles } from "./file-locks.ts";
import { FileChangedError } from "./hash-guard.ts";
import { BEGIN_PATCH, END_PATCH, parsePatch } from "./parse-patch.ts";
import { PatchError, type PatchErrorCode } from "./patch-errors.ts";
import { checkPatchLimits, DEFAULT_PATCH_LIMITS, type PatchLimits } from "./patch-limits.ts";
import type { MatchLevel, PatchOperation } from "./patch-types.ts";
import {
  StagedFiles,
  StagingFailure,
  type StagedFile,
  type TargetedOperation,
} from "./staged-files.ts";
import { resolveWritePath } from "./write-path.ts";

/**
 * What apply_patch tells its caller (the model, the harness, the CLI's --json).
 * The field names are an API (APPLY_PATCH.md): keep them snake_case and stable.
 */
export interface ChangedFile {
  op: "add" | "update" | "delete" | "move";
  /** Workspace-relative path; for a move, the destination. */
  path: string;
  /** For a move: the source path. */
  from?: string;
  /** Hash of the file as written (absent for a delete). */
  sha256?: string;
  /** Hash of the bytes the patch replaced (absent for a new file). */
  previous_sha256?: string;
  /** For an update or move: the match level of each hunk. */
  matched?: MatchLevel[];
}

export interface PatchFailure {
  /** The file as named in the patch ("" when the patch as a whole was refused). */
  path: string;
  code: PatchErrorCode;
  message: string;
  hint: string;
  /** For file_changed: the hash on disk now. */
  current_sha256?: string;
}

export interface ApplyPatchResult {
  success: boolean;
  files_changed: number;
  changed: ChangedFile[];
  failures: PatchFailure[];
  /** A valid patch of only the failed files' operations; null when there is nothing to retry. */
  remaining_patch: string | null;
  /** One sentence per tolerated mistake in the patch's format. */
  repairs: string[];
  notes?: string[];
}

const FD_PATH = /\/proc\/self\/fd\/\d+\//g;

/** Turns anything thrown while patching one file into the failure the model reads. */
export function toFailure(path: string, error: unknown): PatchFailure {
  if (error instanceof AgentFolderError) {
    return { path, code: "io_error", message: error.reason, hint: error.hint };
  }
  if (!(error instanceof PatchError)) {
    // Writes name their folder /proc/self/fd/<n>/ (opened-folder.ts): keep the file's own name.
    const reason = (error instanceof Error ? error.message : String(error)).replace(FD_PATH, "");
    return {
      path,
      code: "io_error",
      message: `Could not write ${path || "the patch"}: ${reason}`,
      hint: "Check that the folder exists and is writable, then apply remaining_patch again.",
    };
  }
  const failure: PatchFailure = {
    path,
    code: error.code,
    message: error.message,
    hint: error.hint,
  };
  if (error instanceof FileChangedError && error.currentSha256 !== undefined) {
    failure.current_sha256 = error.currentSha256;
  }
  return failure;
}

/** The result for a patch refused before any file was looked at (bad format, over a limit). */
export function refusedPatch(
  error: unknown,
  remainingPatch: string | null,
  repairs: string[],
): ApplyPatchResult {
  return {
    success: false,
    files_changed: 0,
    changed: [],
    failures: [toFailure("", error)],
    remaining_patch: remainingPatch,
    repairs,
  };
}

/**
 * The part of a patch that still has to be applied: the failed operations, verbatim, in a
 * valid envelope. After fixing the cause, the model can send it back as it is.
 */
export function renderRemainingPatch(ops: readonly PatchOperation[]): string {
  return `${BEGIN_PATCH}\n${ops.map((op) => op.patchText).join("")}${END_PATCH}\n`;
}

export interface ApplyPatchOptions {
  /** The workspace root: every path in the patch is relative to it. */
  cwd: string;
  /** The SHA-256 the caller believes a file has (by workspace-relative path), or undefined. */
  expect?: (relativePath: string) => string | undefined;
  /** Agent mode: touching existing bytes without a precondition is refused (not_read). */
  requireRead?: boolean;
  /** All or nothing across files: nothing is written unless every file succeeds. */
  atomic?: boolean;
  limits?: PatchLimits;
  /** Where old bytes are saved; default <cwd>/.agent/backups/<runId>. */
  backupDir?: string;
  runId?: string;
  allowedSuffixes?: string[];
  /** Called after the new bytes are staged, before the final hash check (tests simulate a concurrent writer here). */
  beforeCommit?: () => Promise<void> | void;
  /** Sees the staged plan before anything is written (when something will be); a throw writes nothing and propagates. */
  review?: (plan: PatchPlan) => Promise<void> | void;
}

/** What a patch is about to do: its parsed operations, and each file's text before and after. */
export interface PatchPlan {
  operations: PatchOperation[];
  files: PlannedFile[];
}

/** One staged file; `before` is undefined for a new file, `after` for a deleted one. */
export interface PlannedFile {
  path: string;
  before?: string;
  after?: string;
}

/** A group of operations that share a file: they succeed or fail together. */
interface FileGroup {
  items: TargetedOperation[];
  /** A path that could not be resolved fails its group before any file is read. */
  failure?: PatchFailure;
}

interface GroupOutcome {
  group: FileGroup;
  /** Set when every operation of the group succeeded in memory. */
  staged?: StagedFiles;
  failure?: PatchFailure;
  /** The staged files are on disk. */
  written?: boolean;
}

/**
 * apply_patch: parses the patch, checks its size, resolves and locks every
 * file, applies each group of operations in memory, and writes the groups that
 * succeeded atomically, with backups. Never throws for a bad patch or file:
 * the result says what happened.
 */
export async function applyPatch(
  patchText: string,
  options: ApplyPatchOptions,
): Promise<ApplyPatchResult> {
  let operations: PatchOperation[];
  let repairs: string[];
  try {
    ({ operations, repairs } = parsePatch(patchText));
  } catch (error) {
    return refusedPatch(error, null, []);
  }
  try {
    checkPatchLimits(operations, options.limits ?? DEFAULT_PATCH_LIMITS);
  } catch (error) {
    return refusedPatch(error, renderRemainingPatch(operations), repairs);
  }

  const groups = groupByFile(await resolveTargets(operations, options));
  const keys = groups.flatMap((g) => g.items.flatMap(realPaths));
  let agent: string;
  let release: () => Promise<void>;
  try {
    // A symlinked .agent/ would send the backups and locks outside the workspace.
    agent = await agentFolder(options.cwd);
    release = await holdFiles(agent, keys);
  } catch (error) {
    return refusedPatch(error, renderRemainingPatch(operations), repairs);
  }
  try {
    const outcomes = await stageGroups(groups, options);
    try {
      // The files are read now: the lines a whole-file replacement removes count too.
      checkPatchLimits(operations, options.limits ?? DEFAULT_PATCH_LIMITS, (op) =>
        textBefore(outcomes, op),
      );
    } catch (error) {
      return refusedPatch(error, renderRemainingPatch(operations), repairs);
    }
    // Only a reviewer needs the texts: joining and decoding them costs a copy of each file.
    if (options.review !== undefined) {
      const files = plannedFiles(outcomes, options.atomic === true);
      if (files.length > 0) await options.review({ operations, files });
    }
    await commitOutcomes(outcomes, options, agent);
    return summarize(outcomes, repairs, options.atomic === true);
  } finally {
    await release();
  }
}

/**
 * The write leases keep this process's patches apart, the lock files
 * (file-locks.ts) those of every other process: both are held from the first
 * read of a file until its rename.
 */
async function holdFiles(agent: string, keys: string[]): Promise<() => Promise<void>> {
  const release = await acquireWriteLeases(keys);
  const unlock = await lockFiles(path.join(agent, "locks"), keys).catch((error: unknown) => {
    release();
    throw error;
  });
  return async () => {
    await unlock();
    release();
  };
}

/** Resolves every path; an operation whose path is refused becomes a failed group of its own. */
async function resolveTargets(
  operations: PatchOperation[],
  options: ApplyPatchOptions,
): Promise<FileGroup[]> {
  const groups: FileGroup[] = [];
  for (const [index, op] of operations.entries()) {
    let spelled = op.path;
    try {
      const source = await resolveWritePath(options.cwd, op.path, options.allowedSuffixes);
      const item: TargetedOperation = { index, op, source };
      if (op.kind === "update" && op.moveTo !== undefined) {
        spelled = op.moveTo;
        item.destination = await resolveWritePath(options.cwd, op.moveTo, options.allowedSuffixes);
      }
      groups.push({ items: [item] });
    } catch (error) {
      const placeholder = { absolute: "", relative: op.path };
      groups.push({
        items: [{ index, op, source: placeholder }],
        failure: toFailure(spelled, error),
      });
    }
  }
  return groups;
}

/** Merges groups that share a real path, keeping the patch's order inside each group. */
function groupByFile(singles: FileGroup[]): FileGroup[] {
  const merged: FileGroup[] = [];
  for (const single of singles) {
    const keys = single.items.flatMap(realPaths);
    const touching = merged.filter((group) =>
      group.items.some((item) => realPaths(item).some((key) => keys.includes(key))),
    );
    const items = [...touching.flatMap((group) => group.items), ...single.items];
    items.sort((a, b) => a.index - b.index);
    const failure = single.failure ?? touching.find((group) => group.failure)?.failure;
    for (const group of touching) merged.splice(merged.indexOf(group), 1);
    merged.push(failure === undefined ? { items } : { items, failure });
  }
  return merged.sort((a, b) => a.items[0]!.index - b.items[0]!.index);
}

/** The text the operation's file had before the patch, once staging has read it. */
function textBefore(outcomes: GroupOutcome[], op: PatchOperation): string | undefined {
  for (const { group, staged } of outcomes) {
    const item = group.items.find((candidate) => candidate.op === op);
    if (item !== undefined) return staged?.files.get(item.source.absolute)?.diskBytes?.toString();
  }
  return undefined;
}

function realPaths(item: TargetedOperation): string[] {
  const paths = [item.source.absolute, item.destination?.absolute];
  return paths.filter((p): p is string => p !== undefined && p !== "");
}

/** The files that the commit will write: every staged group, or with --atomic none if one failed. */
function plannedFiles(outcomes: GroupOutcome[], atomic: boolean): PlannedFile[] {
  if (atomic && outcomes.some((outcome) => outcome.staged === undefined)) return [];
  return outcomes.flatMap((outcome) =>
    (outcome.staged?.modified() ?? []).map((file) => ({
      path: file.target.relative,
      before: file.diskBytes?.toString("utf8"),
      after: file.contents?.text,
    })),
  );
}

async function stageGroups(
  groups: FileGroup[],
  options: ApplyPatchOptions,
): Promise<GroupOutcome[]> {
  const outcomes: GroupOutcome[] = [];
  for (const group of groups) {
    if (group.failure !== undefined) {
      outcomes.push({ group, failure: group.failure });
      continue;
    }
    const staged = new StagedFiles(options);
    try {
      for (const item of group.items) await staged.apply(item);
      outcomes.push({ group, staged });
    } catch (error) {
      const failure =
        error instanceof StagingFailure ? toFailure(error.path, error.error) : toFailure("", error);
      outcomes.push({ group, failure });
    }
  }
  return outcomes;
}

/**
 * Writes the staged groups. Normally each group commits on its own, so one
 * file's failure does not cancel the others; with `atomic`, all groups commit
 * as one unit, and only if no group failed.
 */
async function commitOutcomes(
  outcomes: GroupOutcome[],
  options: ApplyPatchOptions,
  agent: string,
): Promise<void> {
  const runId = options.runId ?? newRunId();
  const backupDir = options.backupDir ?? path.join(agent, "backups", runId);
  const record = (records: BackupRecord[]) =>
    recordBackups(backupDir, runId, records, path.dirname(agent));
  const ready = outcomes.filter((outcome) => outcome.staged !== undefined);
  const units = options.atomic ? [ready] : ready.map((outcome) => [outcome]);
  if (options.atomic && ready.length < outcomes.length) units.length = 0;

  for (const unit of units) {
    const files = unit.flatMap((outcome) => outcome.staged!.modified());
    try {
      await writeStagedFiles(files, backupDir, record, options.beforeCommit);
      for (const outcome of unit) outcome.written = true;
    } catch (error) {
      const failedAt = failedPath(error, files);
      // The group that owns the failing file reports it; with --atomic the other groups were
      // only held back, which the result's note says, so they are not listed as failures.
      const owner = unit.find((outcome) => ownsPath(outcome, failedAt)) ?? unit[0];
      if (owner !== undefined) owner.failure = toFailure(failedAt, unwrap(error));
    }
  }
}

/** Runs before the rename (commit-files.ts): a patch that undo could not restore is not written. */
async function recordBackups(
  backupDir: string,
  runId: string,
  records: BackupRecord[],
  cwd: string,
): Promise<void> {
  try {
    await recordInManifest(backupDir, runId, records);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const where = path.relative(cwd, backupDir) || backupDir;
    throw new PatchError(
      "io_error",
      `The old bytes were backed up in ${where}, but its manifest.json could not be written ` +
        `(${reason}), so undo could not restore this patch: nothing was written.`,
      "Check that .agent/backups/ is writable and the disk is not full, then apply remaining_patch again.",
    );
  }
}

function failedPath(error: unknown, files: StagedFile[]): string {
  if (error instanceof StagingFailure) return error.path;
  return files[0]?.target.relative ?? "";
}

function ownsPath(outcome: GroupOutcome, relative: string): boolean {
  return [...outcome.staged!.files.values()].some((file) => file.target.relative === relative);
}

function unwrap(error: unknown): unknown {
  return error instanceof StagingFailure ? error.error : error;
}

function summarize(outcomes: GroupOutcome[], repairs: string[], atomic: boolean): ApplyPatchResult {
  const committed = outcomes.filter((outcome) => outcome.written === true);
  const failed = outcomes.filter((outcome) => outcome.failure !== undefined);
  // With --atomic a failure anywhere means nothing was written: every operation remains.
  const remaining = atomic && failed.length > 0 ? outcomes : failed;
  const changed = committed.flatMap((outcome) => finalEntries(outcome.staged!));
  changed.sort((a, b) => a.index - b.index);
  const notes = committed.flatMap((outcome) => outcome.staged!.notes);
  if (atomic && failed.length > 0 && outcomes.length > failed.length) {
    notes.push("--atomic: no file was written because another file in the patch failed.");
  }
  const result: ApplyPatchResult = {
    success: failed.length === 0,
    files_changed: committed.reduce((sum, outcome) => sum + outcome.staged!.modified().length, 0),
    changed: changed.map((item) => item.entry),
    failures: failed.map((outcome) => outcome.failure!),
    remaining_patch:
      remaining.length === 0
        ? null
        : renderRemainingPatch(
            remaining
              .flatMap((outcome) => outcome.group.items)
              .sort((a, b) => a.index - b.index)
              .map((item) => item.op),
          ),
    repairs,
  };
  if (notes.length > 0) result.notes = notes;
  return result;
}

/** The changed entries with the hashes of the files as they now are on disk. */
function finalEntries(staged: StagedFiles): { index: number; entry: ChangedFile }[] {
  const byPath = new Map([...staged.files.values()].map((file) => [file.target.relative, file]));
  return staged.changed.map(({ index, entry }) => {
    const file = byPath.get(entry.path);
    const from = entry.from === undefined ? file : byPath.get(entry.from);
    const withHashes: ChangedFile = { ...entry };
    if (file?.contents !== null && file?.contents !== undefined) {
      withHashes.sha256 = file.contents.sha256;
    }
    const previous = from?.diskHash ?? undefined;
    if (previous !== undefined) withHashes.previous_sha256 = previous;
    return { index, entry: withHashes };
  });
}
