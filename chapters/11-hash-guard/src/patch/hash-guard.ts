import { PatchError } from "./patch-errors.ts";

/**
 * What the agent has seen, kept by the harness: for each workspace-relative
 * path, the SHA-256 of the agent's last full read of it, or of its own last
 * write. apply_patch uses it as the precondition of every change: a file the
 * agent never saw whole cannot be edited, and a file that changed since it
 * was seen is refused instead of overwritten.
 *
 * Partial reads are not recorded on purpose: a model that saw lines 1-50
 * has not seen what it might break on line 51. (Chapter 14 replaces this
 * with the RunLedger, which also survives a restart.)
 */
export class ReadRecord {
  private readonly hashes = new Map<string, string>();

  /** After a full read_file, or after the agent's own write. */
  record(path: string, sha256: string): void {
    this.hashes.set(path, sha256);
  }

  /** After the agent deleted or moved a file away: there is nothing left to have seen. */
  forget(path: string): void {
    this.hashes.delete(path);
  }

  /** The hash the agent believes the file has, or undefined if it never saw it whole. */
  lastSeen(path: string): string | undefined {
    return this.hashes.get(path);
  }
}

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
