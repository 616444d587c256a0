import { closeSync, constants, fdatasyncSync, fstatSync, ftruncateSync } from "node:fs";
import { openSync, writeSync } from "node:fs";
import path from "node:path";
import { inside, makeFolder } from "../fs/opened-folder.ts";
import { readRegularFile } from "../fs/read-regular-file.ts";
import { backUpFile, recordInManifest, type BackupRecord } from "../patch/backups.ts";
import type { FileChange, WorkspaceSnapshot } from "./workspace-snapshot.ts";

// Undo for commands. A patch names its files before it writes them; a command cannot. So once it
// has run, what it changed or deleted is backed up from the bytes its first snapshot holds, in
// place of its unfinished group in the manifest; a created file has none (undo removes it).
export async function recordCommandBackups(
  backupDir: string, // .agent/backups/<run id>
  before: WorkspaceSnapshot,
  changes: readonly FileChange[],
  unfinished: string,
): Promise<void> {
  const records: BackupRecord[] = [];
  for (const { path, before: previous, after } of changes) {
    const file = before.files.get(path); // with its mode: a deleted script comes back executable
    const backup = file ? await backUpFile(backupDir, path, file.bytes) : null;
    records.push({ path, previous_sha256: previous, backup, sha256: after, mode: file?.mode });
  }
  await recordInManifest(backupDir, path.basename(backupDir), records, { replaces: unfinished });
}

// Undo after a kill mid-command, which loses the snapshot's bytes. Before each command, what is not
// on disk yet goes into one file per run: a JSON line naming the command (as its unfinished group
// does) and its files (path, hash, mode, size; a path alone: no longer tracked), then their bytes.
// The files up to a command's, the last per path winning, are the workspace before it: the first
// command writes all, later ones what differs from `packed`. One flush, before the manifest names
// the command.
export const PACK_NAME = "before.pack";
// O_NOFOLLOW: a link a command planted there is not written through.
const APPEND = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW;

type PackedFile = { path: string; sha256?: string; mode?: number; size?: number };
type PackLine = { before: unknown; files: PackedFile[] };

export async function packBefore(
  backupDir: string,
  before: WorkspaceSnapshot,
  packed: WorkspaceSnapshot | undefined,
  command: string,
): Promise<void> {
  const [files, parts]: [PackedFile[], Buffer[]] = [[], []];
  for (const [path, { hash, mode, bytes }] of before.files) {
    const old = packed?.files.get(path);
    if (old?.hash === hash && old.mode === mode) continue;
    files.push({ path, sha256: hash, mode, size: bytes.length });
    parts.push(bytes);
  }
  for (const path of packed?.files.keys() ?? []) if (!before.files.has(path)) files.push({ path });
  parts.unshift(Buffer.from(`${JSON.stringify({ before: command, files })}\n`));
  const { folder } = await makeFolder(backupDir);
  try {
    appendWhole(inside(folder, PACK_NAME), parts);
  } finally {
    await folder.handle.close();
  }
  await recordInManifest(backupDir, path.basename(backupDir), [], { unfinished: command });
}

// A full disk leaves part of an entry: it is cut off, or the next one would be misread.
function appendWhole(file: string, parts: Buffer[]): void {
  const [fd, bytes] = [openSync(file, APPEND, 0o600), Buffer.concat(parts)];
  const { size } = fstatSync(fd);
  try {
    for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at);
    fdatasyncSync(fd);
  } catch (error) {
    ftruncateSync(fd, size);
    throw error;
  } finally {
    closeSync(fd);
  }
}

// The records undo needs after `command` was killed, with their bytes; undo checks them as it checks
// the manifest's. Throws if the pack is damaged or no file (a command could leave a FIFO there).
export async function readPack(backupDir: string, command: string) {
  const { bytes: pack } = await readRegularFile(path.join(backupDir, PACK_NAME));
  if (pack === null) throw new Error(`${PACK_NAME} is not a regular file`);
  const found = new Map<unknown, BackupRecord & { bytes: Buffer }>();
  const backup = PACK_NAME;
  for (let at = 0, end = pack.indexOf(10); end >= 0; end = pack.indexOf(10, at)) {
    const line = JSON.parse(pack.toString("utf8", at, end)) as PackLine;
    at = end + 1;
    for (const { path, sha256, mode, size = 0 } of line.files) {
      const bytes = pack.subarray(at, (at += size));
      if (bytes.length !== size) throw new Error(`${PACK_NAME} ends within ${path}`);
      if (sha256 === undefined) found.delete(path);
      else found.set(path, { path, previous_sha256: sha256, backup, sha256, mode, bytes });
    }
    if (line.before === command) return [...found.values()];
  }
  throw new Error(`${PACK_NAME} ends before command ${command}`);
}
