import { mkdir, readFile, unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { resolveWorkspacePath, WorkspacePathError } from "../fs/workspace-path.ts";
import { applyHunks } from "./apply-hunks.ts";
import { parsePatch } from "./parse-patch.ts";
import { fileNotFound, PatchError, type PatchErrorCode } from "./patch-errors.ts";
import type { PatchOperation } from "./patch-types.ts";

/**
 * What apply_patch tells its caller (the model, the harness).
 * The field names are an API (APPLY_PATCH.md): keep them snake_case and stable.
 */
export interface ChangedFile {
  op: "add" | "update" | "delete";
  /** Workspace-relative path. */
  path: string;
}

export interface PatchFailure {
  /** The file as named in the patch ("" when the patch as a whole was refused). */
  path: string;
  code: PatchErrorCode;
  message: string;
  hint: string;
}

export interface ApplyPatchResult {
  success: boolean;
  files_changed: number;
  changed: ChangedFile[];
  failures: PatchFailure[];
}

/**
 * The result for a patch refused before anything was written: one failure, no change.
 * Only a PatchError is the patch's fault; anything else (a disk error) is thrown on.
 */
export function refusedPatch(path: string, error: unknown): ApplyPatchResult {
  if (!(error instanceof PatchError)) throw error;
  const failure = { path, code: error.code, message: error.message, hint: error.hint };
  return { success: false, files_changed: 0, changed: [], failures: [failure] };
}

export interface ApplyPatchOptions {
  /** The workspace root: every path in the patch is relative to it. */
  cwd: string;
}

/** A file the patch touches: its text on disk and after the operations so far (null: none). */
interface StagedFile {
  absolute: string;
  relative: string;
  diskText: string | null;
  text: string | null;
}

/**
 * apply_patch: parses the patch, runs every operation against an in-memory copy of its files,
 * and writes them only if all succeeded. Never throws for a bad patch or file: the result says
 * what happened.
 */
export async function applyPatch(
  patchText: string,
  options: ApplyPatchOptions,
): Promise<ApplyPatchResult> {
  let operations: PatchOperation[];
  try {
    ({ operations } = parsePatch(patchText));
  } catch (error) {
    return refusedPatch("", error);
  }
  const files = new Map<string, StagedFile>();
  const changed: ChangedFile[] = [];
  for (const op of operations) {
    try {
      const file = await loadFile(files, options.cwd, op.path);
      changed.push(stage(file, op));
    } catch (error) {
      return refusedPatch(op.path, error);
    }
  }
  const modified = [...files.values()].filter((file) => file.text !== file.diskText);
  for (const file of modified) {
    if (file.text === null) {
      await unlink(file.absolute);
    } else {
      await mkdir(path.dirname(file.absolute), { recursive: true });
      await writeFile(file.absolute, file.text);
    }
  }
  return { success: true, files_changed: modified.length, changed, failures: [] };
}

/** One operation, in memory: hunks and repeated updates of one file chain here. */
function stage(file: StagedFile, op: PatchOperation): ChangedFile {
  if (op.kind === "add") {
    file.text = op.contents;
  } else if (file.text === null) {
    throw fileNotFound(file.relative, op.kind);
  } else {
    file.text = op.kind === "delete" ? null : applyHunks(file.text, op.hunks, file.relative).text;
  }
  return { op: op.kind, path: file.relative };
}

/**
 * Reads a file the first time the patch touches it; later operations see the staged text.
 * The path comes from the model, so chapter 07's workspace confinement checks it first.
 */
async function loadFile(
  files: Map<string, StagedFile>,
  cwd: string,
  relPath: string,
): Promise<StagedFile> {
  const resolved = await resolveWorkspacePath(cwd, relPath).catch((error: unknown) => {
    if (!(error instanceof WorkspacePathError)) throw error;
    throw new PatchError(error.code, error.message, error.hint);
  });
  if (resolved.relative === ".") {
    throw new PatchError(
      "path_escape",
      `Path "${relPath}" is the workspace root itself, not a file.`,
      'Name a file inside the workspace, such as "src/index.ts".',
    );
  }
  const known = files.get(resolved.absolute);
  if (known !== undefined) return known;
  const text = await readFile(resolved.absolute, "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT" || error.code === "ENOTDIR") return null;
    throw error;
  });
  const file = { absolute: resolved.absolute, relative: resolved.relative, diskText: text, text };
  files.set(resolved.absolute, file);
  return file;
}
