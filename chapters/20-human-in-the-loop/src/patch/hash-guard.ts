import { PatchError } from "./patch-errors.ts";

/**
 * The hash guard: a patch is written against the bytes its author saw. The
 * author states them as a SHA-256 precondition (chapter 07's `sha256`, the
 * hash read_file shows); if the disk holds anything else, the patch was built
 * on a stale picture of the file and is refused.
 */

/** file_changed carries the hash on disk now, so the caller can tell stale from unknown. */
export class FileChangedError extends PatchError {
  constructor(
    message: string,
    hint: string,
    readonly currentSha256: string | undefined,
  ) {
    super("file_changed", message, hint);
  }
}

const REREAD_HINT = (path: string) =>
  `Read ${path} again and rebuild the patch against its current contents.`;

/** First check, when the file is read for patching: does the disk hold the bytes the author saw? */
export function checkPrecondition(path: string, expected: string, current: string): void {
  if (expected.toLowerCase() === current) return;
  throw new FileChangedError(
    `${path} has changed since it was last read: expected sha256 ${expected}, found ${current}.`,
    REREAD_HINT(path),
    current,
  );
}

/** Second check, right before the rename: did anyone write the file while the patch was being prepared? */
export function checkUnchanged(
  path: string,
  readHash: string | null,
  nowHash: string | null,
): void {
  if (readHash === nowHash) return;
  const now = nowHash === null ? "it was deleted" : `its sha256 is now ${nowHash}`;
  throw new FileChangedError(
    `${path} changed on disk while the patch was being applied (${now}); nothing was written to it.`,
    REREAD_HINT(path),
    nowHash ?? undefined,
  );
}
