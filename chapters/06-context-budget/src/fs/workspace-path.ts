import path from "node:path";
import { ToolError } from "../tools/tool-error.ts";

const RELATIVE_HINT = 'Use a path relative to the workspace root, such as "src/index.ts".';

/**
 * Every path a tool receives comes from the model, so it is untrusted input. This is the simplest
 * honest check: the path, read as text, must stay inside the workspace. It does not look at the
 * disk, so a symlink inside the workspace that points elsewhere gets through; chapter 7 resolves
 * real paths and closes that hole.
 */
export function resolveInWorkspace(root: string, relPath: string): string {
  if (path.isAbsolute(relPath) || relPath === "~" || relPath.startsWith("~/")) {
    throw new ToolError(
      "path_escape",
      `Path "${relPath}" is not relative to the workspace root (${root}).`,
      RELATIVE_HINT,
    );
  }
  const absolute = path.resolve(root, relPath);
  const rel = path.relative(root, absolute);
  if (rel === ".." || rel.startsWith(".." + path.sep)) {
    throw new ToolError(
      "path_escape",
      `Path "${relPath}" resolves outside the workspace root (${root}).`,
      `Remove the ".." segments that leave the workspace. ${RELATIVE_HINT}`,
    );
  }
  return absolute;
}
