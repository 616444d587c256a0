import { sha256 } from "../fs/file-hash.ts";
import { writeStagedFiles } from "./commit-files.ts";
import { FileChangedError } from "./hash-guard.ts";
import { parsePatch } from "./parse-patch.ts";
import { PatchError, type PatchErrorCode } from "./patch-errors.ts";
import type { MatchLevel, PatchOperation } from "./patch-types.ts";
import { StagedFiles, StagingFailure, type TargetedOperation } from "./staged-files.ts";
import { resolveWritePath } from "./write-path.ts";

/**
 * What apply_patch tells its caller (the model, the harness, the CLI).
 * The field names are an API (APPLY_PATCH.md): keep them snake_case and stable.
 */
export interface ChangedFile {
  op: "add" | "update" | "delete";
  /** Workspace-relative path. */
  path: string;
  /** Hash of the file as written (absent for a delete). */
  sha256?: string;
  /** Hash of the bytes the patch replaced (absent for a new file). */
  previous_sha256?: string;
  /** For an update: the match level of each hunk. */
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
  /** One sentence per tolerated mistake in the patch's format. */
  repairs: string[];
  notes?: string[];
}

/**
 * Turns a PatchError thrown while patching one file into the failure the model reads.
 * Anything else (a disk error) is not the patch's fault: it is thrown on.
 */
export function toFailure(path: string, error: unknown): PatchFailure {
  if (!(error instanceof PatchError)) throw error;
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

/** The result for a patch refused before anything was written: one failure, no change. */
export function refusedPatch(error: unknown, repairs: string[]): ApplyPatchResult {
  const failure =
    error instanceof StagingFailure ? toFailure(error.path, error.error) : toFailure("", error);
  return { success: false, files_changed: 0, changed: [], failures: [failure], repairs };
}

export interface ApplyPatchOptions {
  /** The workspace root: every path in the patch is relative to it. */
  cwd: string;
  /** The SHA-256 the caller believes a file has (by workspace-relative path), or undefined. */
  expect?: (relativePath: string) => string | undefined;
  /** Agent mode: touching existing bytes without a precondition is refused (not_read). */
  requireRead?: boolean;
}

/**
 * apply_patch: parses the patch, resolves every file, applies every operation
 * in memory, and writes the files only if every operation succeeded. Never
 * throws for a bad patch or file: the result says what happened.
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
    return refusedPatch(error, []);
  }

  let targets: TargetedOperation[];
  try {
    targets = await resolveTargets(operations, options);
  } catch (error) {
    return refusedPatch(error, repairs);
  }
  try {
    const staged = new StagedFiles(options);
    for (const item of targets) await staged.apply(item);
    await writeStagedFiles(staged.modified());
    return summarize(staged, repairs);
  } catch (error) {
    return refusedPatch(error, repairs);
  }
}

/** Resolves every path; one that is refused refuses the patch before any file is read. */
async function resolveTargets(
  operations: PatchOperation[],
  options: ApplyPatchOptions,
): Promise<TargetedOperation[]> {
  const targets: TargetedOperation[] = [];
  for (const op of operations) {
    try {
      targets.push({ op, source: await resolveWritePath(options.cwd, op.path) });
    } catch (error) {
      throw new StagingFailure(op.path, error);
    }
  }
  return targets;
}

function summarize(staged: StagedFiles, repairs: string[]): ApplyPatchResult {
  const result: ApplyPatchResult = {
    success: true,
    files_changed: staged.modified().length,
    changed: finalEntries(staged),
    failures: [],
    repairs,
  };
  if (staged.notes.length > 0) result.notes = [...staged.notes];
  return result;
}

/** The changed entries with the hashes of the files as they now are on disk. */
function finalEntries(staged: StagedFiles): ChangedFile[] {
  const byPath = new Map([...staged.files.values()].map((file) => [file.target.relative, file]));
  return staged.changed.map((entry) => {
    const file = byPath.get(entry.path);
    const withHashes: ChangedFile = { ...entry };
    if (file?.text !== null && file?.text !== undefined) {
      withHashes.sha256 = sha256(file.text);
    }
    const previous = file?.diskHash ?? undefined;
    if (previous !== undefined) withHashes.previous_sha256 = previous;
    return withHashes;
  });
}
