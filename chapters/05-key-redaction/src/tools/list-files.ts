import { readdir } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { defineTool } from "./define-tool.ts";

// Folders no model needs to see: version control, and installed packages.
const SKIPPED = new Set([".git", "node_modules"]);

/**
 * Every file of the workspace, one path per line. No limit yet, and no .gitignore: chapter 8
 * walks the workspace the way git sees it.
 */
export const listFilesTool = defineTool({
  name: "list_files",
  description:
    "List every file of the workspace, one path per line, relative to the workspace root. Skips .git/ and node_modules/.",
  effect: "read",
  schema: z.object({}),
  async execute(_args, context) {
    const entries = await readdir(context.cwd, { recursive: true, withFileTypes: true });
    const files = entries
      .filter((entry) => entry.isFile())
      .map((entry) => path.relative(context.cwd, path.join(entry.parentPath, entry.name)))
      .filter((file) => !file.split(path.sep).some((part) => SKIPPED.has(part)))
      .map((file) => file.split(path.sep).join("/"))
      .sort();
    if (files.length === 0) return { ok: true, content: "The workspace has no files." };
    return { ok: true, content: [`${files.length} file(s):`, ...files].join("\n") };
  },
});
