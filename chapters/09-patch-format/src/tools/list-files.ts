import { stat } from "node:fs/promises";
import picomatch from "picomatch";
import { z } from "zod";
import { defineTool } from "./define-tool.ts";
import { ToolError } from "./tool-error.ts";
import { describeSkipped, walkWorkspace } from "./walk-workspace.ts";
import { resolveWorkspacePath } from "../fs/workspace-path.ts";

export const LIST_LIMITS = { maxFiles: 200 };

export const listFilesTool = defineTool({
  name: "list_files",
  description:
    "List the files of the workspace (or of one folder), one path per line, relative to the workspace root. " +
    "Skips .gitignore'd files, .git/, node_modules/ and .agent/. " +
    `At most ${LIST_LIMITS.maxFiles} paths per call; narrow with path or glob.`,
  effect: "read",
  schema: z.object({
    path: z
      .string()
      .optional()
      .describe('Folder to list, relative to the workspace root (default ".")'),
    glob: z
      .string()
      .optional()
      .describe(
        'Only paths matching this glob, e.g. "**/*.ts"; a glob without "/" matches file names',
      ),
  }),
  async execute(args, context) {
    const folder = await resolveFolder(context.cwd, args.path ?? ".");
    const matches = fileMatcher(args.glob);
    const files: string[] = [];
    let hidden = 0;
    const skipped: string[] = [];
    const onSkip = (_path: string, why: string) => skipped.push(why);
    for await (const file of walkWorkspace(context.cwd, folder, context.signal, onSkip)) {
      if (!matches(file)) continue;
      if (files.length < LIST_LIMITS.maxFiles) files.push(file);
      else hidden++;
    }
    const scope = describeScope(folder, args.glob);
    const lines = [`${files.length + hidden} file(s) ${scope}:`, ...files];
    if (files.length === 0) lines.splice(0, 1, `No files found ${scope}.`);
    if (hidden > 0) lines.push(`... ${hidden} more files not shown; narrow with glob or path`);
    return { ok: true, content: [...lines, ...describeSkipped(skipped)].join("\n") };
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

/** Globs match the workspace-relative path; a glob without "/" matches the file name at any depth. */
export function fileMatcher(glob: string | undefined): (file: string) => boolean {
  if (glob === undefined || glob === "") return () => true;
  return picomatch(glob, { dot: true, basename: !glob.includes("/") });
}

export function describeScope(folder: string, glob: string | undefined): string {
  const where = folder === "." ? "in the workspace" : `under ${folder}/`;
  return glob ? `${where} matching "${glob}"` : where;
}
