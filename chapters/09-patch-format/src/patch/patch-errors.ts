export type PatchErrorCode =
  | "invalid_patch"
  | "path_escape"
  | "symlink"
  | "file_not_found"
  | "context_not_found"
  | "ambiguous_context";

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

/**
 * The refusals that come from the state of a file on disk rather than from the
 * patch's text. Each says what is wrong and what to do next; tests pin them.
 */
export function fileNotFound(path: string, action: "update" | "delete"): PatchError {
  return new PatchError(
    "file_not_found",
    `Cannot ${action} ${path}: the file does not exist.`,
    action === "update"
      ? `Check the path with list_files, or create the file with "*** Add File: ${path}".`
      : "Check the path with list_files; if the file is already gone, drop this Delete File from the patch.",
  );
}
