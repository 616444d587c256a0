import { lstat, readlink, realpath } from "node:fs/promises";
import path from "node:path";

/**
 * Every path a tool receives comes from the model, so it is untrusted input.
 * This module turns it into an absolute path that is guaranteed to stay inside
 * the workspace, or refuses with an error the model can act on.
 */
export class WorkspacePathError extends Error {
  constructor(
    readonly code: "path_escape" | "symlink",
    message: string,
    readonly hint: string,
  ) {
    super(message);
    this.name = "WorkspacePathError";
  }
}

export interface ResolvedWorkspacePath {
  /** Real absolute path (symlinks inside the workspace resolved). */
  absolute: string;
  /** Path relative to the real workspace root, with "/" separators ("." for the root). */
  relative: string;
  exists: boolean;
}

const RELATIVE_HINT = 'Use a path relative to the workspace root, such as "src/index.ts".';

/** Resolves a workspace-relative path with realpath: refuses absolute paths, "~", ".." escapes, and symlinks
 *  (the file or any parent) leading outside the root. Works for paths that do not exist yet (nearest existing ancestor). */
export async function resolveWorkspacePath(
  root: string,
  relPath: string,
): Promise<ResolvedWorkspacePath> {
  const realRoot = await realpath(root);
  const lexical = resolveLexically(realRoot, relPath);

  // Walk up until something exists: a path to a new file is judged by the
  // real location of the folder it would be created in.
  const { existing, missing } = await splitAtNearestExisting(lexical);
  const realExisting = await realpathOrRefuse(existing, realRoot, relPath);
  if (!isInside(realRoot, realExisting)) {
    throw new WorkspacePathError(
      "symlink",
      `Path "${relPath}" goes through a symlink that leads to "${realExisting}", outside the workspace root (${realRoot}).`,
      "Symlinks leading outside the workspace cannot be read or written. " + RELATIVE_HINT,
    );
  }

  const absolute = path.join(realExisting, ...missing);
  return {
    absolute,
    relative: toPosix(path.relative(realRoot, absolute)) || ".",
    exists: missing.length === 0,
  };
}

/** The checks that need no file system: absolute, "~" and ".." escapes. */
function resolveLexically(realRoot: string, relPath: string): string {
  if (relPath.includes("\0")) {
    throw new WorkspacePathError(
      "path_escape",
      `Path "${relPath.replaceAll("\0", "\\0")}" contains a NUL byte.`,
      RELATIVE_HINT,
    );
  }
  if (relPath === "~" || relPath.startsWith("~/") || relPath.startsWith("~\\")) {
    throw new WorkspacePathError(
      "path_escape",
      `Path "${relPath}" points into a home directory; only files inside the workspace root (${realRoot}) are allowed.`,
      RELATIVE_HINT,
    );
  }
  if (path.isAbsolute(relPath) || /^[A-Za-z]:[\\/]/.test(relPath)) {
    throw new WorkspacePathError(
      "path_escape",
      `Path "${relPath}" is absolute; only paths relative to the workspace root (${realRoot}) are allowed.`,
      RELATIVE_HINT,
    );
  }
  const lexical = path.resolve(realRoot, relPath);
  if (!isInside(realRoot, lexical)) {
    throw new WorkspacePathError(
      "path_escape",
      `Path "${relPath}" resolves outside the workspace root (${realRoot}).`,
      `Remove the ".." segments that leave the workspace. ${RELATIVE_HINT}`,
    );
  }
  return lexical;
}

async function splitAtNearestExisting(
  lexical: string,
): Promise<{ existing: string; missing: string[] }> {
  const missing: string[] = [];
  let current = lexical;
  for (;;) {
    try {
      await lstat(current);
      return { existing: current, missing };
    } catch (error) {
      if (!cannotResolve(error)) throw error; // ELOOP too: walk up to the looping link
      missing.unshift(path.basename(current));
      current = path.dirname(current);
    }
  }
}

/** realpath, with dangling and looping symlinks turned into a refusal. */
async function realpathOrRefuse(existing: string, realRoot: string, relPath: string) {
  try {
    return await realpath(existing);
  } catch (error) {
    if (!cannotResolve(error)) throw error;
    const target = await readlink(existing).catch(() => "?");
    throw new WorkspacePathError(
      "symlink",
      `Path "${relPath}" goes through the symlink "${toPosix(path.relative(realRoot, existing))}" whose target "${target}" cannot be resolved.`,
      "Broken or looping symlinks cannot be followed. Use the real path of the file instead.",
    );
  }
}

function isInside(realRoot: string, candidate: string): boolean {
  const rel = path.relative(realRoot, candidate);
  return rel === "" || !(rel === ".." || rel.startsWith(".." + path.sep) || path.isAbsolute(rel));
}

function cannotResolve(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === "ENOENT" || code === "ENOTDIR" || code === "ELOOP";
}

function toPosix(p: string): string {
  return p.split(path.sep).join("/");
}
