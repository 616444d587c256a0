import { readdir, stat } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { defineTool } from "./define-tool.ts";
import { ToolError } from "./tool-error.ts";
import { resolveWorkspacePath } from "../fs/workspace-path.ts";

export const LIST_LIMITS = { maxFiles: 200 };

// Folders no model needs to see: version control, and installed packages.
const SKIPPED = new Set([".git", "node_modules"]);

export const listFilesTool = defineTool({
  name: "list_files",
  description:
    "List the files of the workspace (or of one folder), one path per line, relative to the workspace root. " +
    "Skips .git/ and node_modules/. " +
    `At most ${LIST_LIMITS.maxFiles} paths per call; narrow with path.`,
  effect: "read",
  schema: z.object({
    path: z
      .string()
      .optional()
      .describe('Folder to list, relative to the workspace root (default ".")'),
  }),
  async execute(args, context) {
    const folder = await resolveFolder(context.cwd, args.path ?? ".");
    const entries = await readdir(path.join(context.cwd, folder), {
      recursive: true,
      withFileTypes: true,
    });
    const all = entries
      .filter((entry) => entry.isFile())
      .map((entry) => path.relative(context.cwd, path.join(entry.parentPath, entry.name)))
      .filter((file) => !file.split(path.sep).some((part) => SKIPPED.has(part)))
      .map((file) => file.split(path.sep).join("/"))
      .sort();
    const files = all.slice(0, LIST_LIMITS.maxFiles);
    const hidden = all.length - files.length;
    const scope = folder === "." ? "in the workspace" : `under ${folder}/`;
    const lines = [`${files.length + hidden} file(s) ${scope}:`, ...files];
    if (files.length === 0) lines.splice(0, 1, `No files found ${scope}.`);
    if (hidden > 0) lines.push(`... ${hidden} more files not shown; narrow with path`);
    return { ok: true, content: lines.join("\n") };
  },
});

/** Resolves a folder argument, refusing files with a hint to read them instead. */
export async function resolveFolder(root: string, relPath: string): Promise<string> {
  const resolved = await resolveWorkspacePath(root, relPath);
  if (!resolved.exists) {
    throw new ToolError(
      "file_not_found",
      `${resolved.relative} does not exist.`,
      "Call list_files without a path to see the whole workspace.",
    );
  }
  if (!(await stat(resolved.absolute)).isDirectory()) {
    throw new ToolError(
      "not_a_directory",
      `${resolved.relative} is a file, not a folder.`,
      `Use read_file with path="${resolved.relative}" to read it.`,
    );
  }
  return resolved.relative;
}
