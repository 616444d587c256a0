import { readFile } from "node:fs/promises";
import { z } from "zod";
import { defineTool } from "./define-tool.ts";
import { ToolError } from "./tool-error.ts";
import { resolveInWorkspace } from "../fs/workspace-path.ts";

/**
 * The whole file, with numbered lines so the model can talk about them. No size cap yet: a huge
 * file is sent whole (chapter 7 caps each read).
 */
export const readFileTool = defineTool({
  name: "read_file",
  description:
    'Read a text file of the workspace. Output: the path, then numbered lines ("   12\\tline").',
  effect: "read",
  schema: z.object({
    path: z.string().describe("File path relative to the workspace root"),
  }),
  async execute(args, context) {
    const absolute = resolveInWorkspace(context.cwd, args.path);
    let text: string;
    try {
      text = await readFile(absolute, "utf8");
    } catch (error) {
      throw readError(args.path, error);
    }
    const lines = text === "" ? [] : text.replace(/\n$/, "").split("\n");
    const numbered = lines.map((line, i) => `${String(i + 1).padStart(5)}\t${line}`);
    return { ok: true, content: [`${args.path}: ${lines.length} lines`, ...numbered].join("\n") };
  },
});

/** The two failures a model causes by itself, as errors it can act on. */
export function readError(where: string, error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT") {
    return new ToolError(
      "file_not_found",
      `${where} does not exist.`,
      "Paths are relative to the workspace root; call list_files to see which files there are.",
    );
  }
  if (code === "EISDIR") {
    return new ToolError(
      "is_directory",
      `${where} is a directory, not a file.`,
      `Call list_files to see the files inside ${where}/.`,
    );
  }
  return error;
}
