import { FileChangedError } from "./hash-guard.ts";
import { PatchError, type PatchErrorCode } from "./patch-error.ts";
import type { MatchLevel } from "./patch-types.ts";

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

/** Turns anything thrown while patching one file into the failure the model reads. */
export function toFailure(path: string, error: unknown): PatchFailure {
  if (!(error instanceof PatchError)) {
    const reason = error instanceof Error ? error.message : String(error);
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
