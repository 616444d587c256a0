export type PatchErrorCode =
  | "invalid_patch"
  | "path_escape"
  | "symlink"
  | "disallowed_path"
  | "file_exists"
  | "file_not_found"
  | "not_read"
  | "file_changed"
  | "context_not_found"
  | "ambiguous_context"
  | "too_many_files"
  | "too_many_changes"
  | "io_error";

/** An error the model reads: what failed, why (message), and the exact next step (hint). */
export class PatchError extends Error {
  constructor(
    readonly code: PatchErrorCode,
    message: string,
    readonly hint: string,
  ) {
    super(message);
    this.name = "PatchError";
  }
}
