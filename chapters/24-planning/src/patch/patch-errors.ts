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

/**
 * The refusals that come from the state of a file on disk rather than from the
 * patch's text. Each says what is wrong and what to do next; tests pin them.
 */
export type FileAction = "add" | "update" | "delete" | "move";

export function fileNotFound(path: string, action: "update" | "delete"): PatchError {
  return new PatchError(
    "file_not_found",
    `Cannot ${action} ${path}: the file does not exist.`,
    action === "update"
      ? `Check the path with list_files, or create the file with "*** Add File: ${path}".`
      : "Check the path with list_files; if the file is already gone, drop this Delete File from the patch.",
  );
}

export function isDirectory(path: string, action: FileAction): PatchError {
  return new PatchError(
    "file_not_found",
    `Cannot ${action} ${path}: it is a directory, and apply_patch works on single files.`,
    action === "delete"
      ? "Delete the files inside it one by one, each with its own Delete File."
      : "Name a file, not a directory.",
  );
}

export function fileExists(path: string): PatchError {
  return new PatchError(
    "file_exists",
    `Cannot add ${path}: the file already exists, and Add File never overwrites bytes nobody has looked at.`,
    `Change it with "*** Update File: ${path}", or pass --expect ${path}=<sha256 of its current bytes> to replace it on purpose.`,
  );
}

export function moveOntoExisting(from: string, to: string): PatchError {
  return new PatchError(
    "file_exists",
    `Cannot move ${from} to ${to}: ${to} already exists, and a move never overwrites bytes nobody has looked at.`,
    `Move to a path that does not exist yet, or pass --expect ${to}=<sha256 of its current bytes> to replace it on purpose.`,
  );
}

export function notRead(path: string, action: FileAction): PatchError {
  const what = action === "add" || action === "move" ? "replace" : action;
  return new PatchError(
    "not_read",
    `Cannot ${what} ${path}: it has not been read in this run, so the patch may be built on a wrong picture of it.`,
    `Read ${path} with read_file first, then send the patch again.`,
  );
}

export function notText(path: string): PatchError {
  return new PatchError(
    "disallowed_path",
    `Cannot update ${path}: its bytes are not valid UTF-8 text.`,
    "apply_patch edits text files only; leave this file alone.",
  );
}
