import { isUtf8 } from "node:buffer";
import { sha256 } from "../fs/file-hash.ts";
import { describeFileType, readRegularFile } from "../fs/read-regular-file.ts";
import { applyHunksInStretches, replaceWholeFile } from "./apply-hunks.ts";
import type { ChangedFile } from "./apply-patch.ts";
import { FileContents } from "./file-contents.ts";
import { checkPrecondition } from "./hash-guard.ts";
import {
  fileExists,
  fileNotFound,
  isDirectory,
  moveOntoExisting,
  notRead,
  notText,
  PatchError,
  type FileAction,
} from "./patch-errors.ts";
import type { MatchLevel, PatchOperation } from "./patch-types.ts";
import type { WritePath } from "./write-path.ts";

/**
 * The operations on a group of files run against an in-memory copy first:
 * hunks and repeated updates of one file chain here, and nothing reaches the
 * disk unless every operation of the group succeeded.
 */
export interface StagedFile {
  target: WritePath;
  /** Bytes on disk when first read; null when there was no file. */
  diskBytes: Buffer | null;
  diskHash: string | null;
  /** The contents after the operations so far; null when the file is (now) absent. */
  contents: FileContents | null;
  /** The file's permission bits, kept when it is rewritten or moved. */
  mode: number | undefined;
  isDirectory: boolean;
  /** The hash guard has been settled for the disk bytes. */
  guarded: boolean;
}

export interface TargetedOperation {
  /** Position in the patch, to report results in patch order. */
  index: number;
  op: PatchOperation;
  source: WritePath;
  /** For "Update File" + "Move to": where the file goes. */
  destination?: WritePath;
}

export interface GuardOptions {
  expect?: (relativePath: string) => string | undefined;
  requireRead?: boolean;
}

/** A failure while staging, with the workspace path it concerns. */
export class StagingFailure extends Error {
  constructor(
    readonly path: string,
    readonly error: unknown,
  ) {
    super(error instanceof Error ? error.message : String(error));
  }
}

export class StagedFiles {
  readonly files = new Map<string, StagedFile>();
  readonly changed: { index: number; entry: ChangedFile }[] = [];
  readonly notes: string[] = [];

  constructor(private readonly guard: GuardOptions) {}

  async apply(item: TargetedOperation): Promise<void> {
    const { op, source } = item;
    try {
      if (op.kind === "add") await this.add(item.index, source, op.contents);
      else if (op.kind === "delete") await this.delete(item.index, source);
      else await this.update(item, op);
    } catch (error) {
      if (error instanceof StagingFailure) throw error;
      throw new StagingFailure(source.relative, error);
    }
  }

  /** The files whose final state differs from the disk. */
  modified(): StagedFile[] {
    return [...this.files.values()].filter((file) => {
      if (file.contents === null) return file.diskBytes !== null;
      return file.diskHash === null || file.contents.sha256 !== file.diskHash;
    });
  }

  private async add(index: number, target: WritePath, contents: string): Promise<void> {
    const file = await this.load(target);
    if (file.isDirectory) throw isDirectory(target.relative, "add");
    if (file.contents !== null) this.settleGuard(file, "add", () => fileExists(target.relative));
    file.contents = FileContents.of(contents);
    this.changed.push({ index, entry: { op: "add", path: target.relative } });
  }

  private async delete(index: number, target: WritePath): Promise<void> {
    const file = await this.existingFile(target, "delete");
    this.settleGuard(file, "delete");
    file.contents = null;
    this.changed.push({ index, entry: { op: "delete", path: target.relative } });
  }

  private async update(
    item: TargetedOperation,
    op: Extract<PatchOperation, { kind: "update" }>,
  ): Promise<void> {
    const { source, destination } = item;
    const file = await this.existingFile(source, "update");
    this.settleGuard(file, "update");
    if (file.contents !== null && isStillBinary(file)) throw notText(source.relative);
    const applied = applyUpdate(file.contents ?? FileContents.of(""), op, source.relative);
    this.notes.push(...applied.notes);

    if (destination === undefined || destination.absolute === source.absolute) {
      file.contents = applied.contents;
      const entry: ChangedFile = { op: "update", path: source.relative, matched: applied.matched };
      this.changed.push({ index: item.index, entry });
      return;
    }
    const moved = await this.load(destination);
    if (moved.isDirectory)
      throw new StagingFailure(destination.relative, isDirectory(destination.relative, "move"));
    if (moved.contents !== null) {
      try {
        this.settleGuard(moved, "move", () =>
          moveOntoExisting(source.relative, destination.relative),
        );
      } catch (error) {
        throw new StagingFailure(destination.relative, error);
      }
    }
    moved.contents = applied.contents;
    moved.mode = file.mode;
    file.contents = null;
    const entry: ChangedFile = {
      op: "move",
      path: destination.relative,
      from: source.relative,
      matched: applied.matched,
    };
    this.changed.push({ index: item.index, entry });
  }

  private async existingFile(target: WritePath, action: "update" | "delete"): Promise<StagedFile> {
    const file = await this.load(target);
    if (file.isDirectory) throw isDirectory(target.relative, action);
    if (file.contents === null) throw fileNotFound(target.relative, action);
    return file;
  }

  /**
   * The hash guard's first check. Bytes on disk that this patch has not yet
   * vouched for need a precondition: the expected hash, when one is given;
   * in agent mode (requireRead) its absence is refused; on the command line an
   * update or delete goes ahead unguarded, while overwriting is refused.
   */
  private settleGuard(file: StagedFile, action: FileAction, refuseOverwrite?: () => Error): void {
    if (file.diskHash === null || file.guarded) return;
    const expected = this.guard.expect?.(file.target.relative);
    if (expected !== undefined) checkPrecondition(file.target.relative, expected, file.diskHash);
    else if (this.guard.requireRead) throw notRead(file.target.relative, action);
    else if (refuseOverwrite !== undefined) throw refuseOverwrite();
    file.guarded = true;
  }

  /** Reads a file the first time the group touches it; later operations see the staged text. */
  private async load(target: WritePath): Promise<StagedFile> {
    const known = this.files.get(target.absolute);
    if (known !== undefined) return known;
    const file = await readFromDisk(target);
    this.files.set(target.absolute, file);
    return file;
  }
}

async function readFromDisk(target: WritePath): Promise<StagedFile> {
  const empty = { target, diskBytes: null, diskHash: null, contents: null, guarded: false };
  const file = await readRegularFile(target.absolute).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT" || error.code === "ENOTDIR") return undefined;
    throw error;
  });
  if (file === undefined) return { ...empty, mode: undefined, isDirectory: false };
  if (file.stats.isDirectory()) return { ...empty, mode: undefined, isDirectory: true };
  if (file.bytes === null) throw notRegularFile(target.relative, describeFileType(file.stats));
  const bytes = file.bytes;
  const diskHash = sha256(bytes);
  return {
    target,
    diskBytes: bytes,
    diskHash,
    // Decoded as UTF-8 with a BOM kept: the engine preserves it and the line endings.
    contents: FileContents.read(bytes, diskHash),
    mode: file.stats.mode & 0o7777,
    isDirectory: false,
    guarded: false,
  };
}

/**
 * An update's new contents: hunks edit the text in stretches (file-contents.ts); a body without
 * hunk lines replaces it whole.
 */
function applyUpdate(
  contents: FileContents,
  op: Extract<PatchOperation, { kind: "update" }>,
  path: string,
): { contents: FileContents; matched: MatchLevel[]; notes: string[] } {
  if (op.wholeFile !== undefined) {
    const { text, matched, notes } = replaceWholeFile(contents.text, op.wholeFile);
    return { contents: FileContents.of(text), matched, notes };
  }
  const { stretches, matched, notes } = applyHunksInStretches(contents.text, op.hunks, path);
  return { contents: contents.edit(stretches), matched, notes };
}

/** A FIFO would block the read and a device never end; writing would replace either with a file. */
function notRegularFile(path: string, kind: string): PatchError {
  return new PatchError(
    "disallowed_path",
    `Cannot patch ${path}: it is ${kind}, not a regular file.`,
    "apply_patch edits regular files only; leave this one alone.",
  );
}

/** True while the text is still the lossy decoding of bytes that are not UTF-8. */
function isStillBinary(file: StagedFile): boolean {
  return (
    file.diskBytes !== null &&
    !isUtf8(file.diskBytes) &&
    file.contents?.text === file.diskBytes.toString("utf8")
  );
}
