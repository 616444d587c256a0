import { resolveWorkspacePath, WorkspacePathError } from "../fs/workspace-path.ts";
import { PatchError } from "./patch-errors.ts";

/**
 * Every path in a patch comes from the model: it goes through chapter 07's
 * workspace confinement (no absolute paths, no "..", no symlink leading out)
 * before anything is read or written.
 */
export interface WritePath {
  /** Real absolute path. */
  absolute: string;
  /** Workspace-relative, "/"-separated: the key for hashes and results. */
  relative: string;
}

/** Resolves a path a patch wants to write, or throws a PatchError the model can act on. */
export async function resolveWritePath(root: string, relPath: string): Promise<WritePath> {
  const resolved = await resolveReadablePath(root, relPath);
  return { absolute: resolved.absolute, relative: resolved.relative };
}

async function resolveReadablePath(root: string, relPath: string) {
  try {
    const resolved = await resolveWorkspacePath(root, relPath);
    if (resolved.relative === ".") {
      throw new PatchError(
        "path_escape",
        `Path "${relPath}" is the workspace root itself, not a file.`,
        'Name a file inside the workspace, such as "src/index.ts".',
      );
    }
    return resolved;
  } catch (error) {
    if (error instanceof WorkspacePathError)
      throw new PatchError(error.code, error.message, error.hint);
    throw error;
  }
}
