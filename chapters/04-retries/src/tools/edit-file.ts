import { readFile, writeFile } from "node:fs/promises";
import { z } from "zod";
import { defineTool } from "./define-tool.ts";
import { readError } from "./read-file.ts";
import { ToolError } from "./tool-error.ts";
import { resolveInWorkspace } from "../fs/workspace-path.ts";

/**
 * The simplest edit that works: replace one exact piece of text. It must occur exactly once, so
 * the model cannot change the wrong place by accident. What it lacks, chapters 9 to 13 add: new
 * and deleted files, several changes in one call, and a guard against a file that changed since
 * the model read it.
 */
export const editFileTool = defineTool({
  name: "edit_file",
  description:
    "Replace one exact piece of text in a file of the workspace. old_text must occur exactly once in the file, " +
    "whitespace included: copy it from read_file's output without the line numbers, with enough lines to be unique.",
  effect: "write",
  schema: z.object({
    path: z.string().describe("File path relative to the workspace root"),
    old_text: z.string().min(1).describe("The exact text to replace; must occur exactly once"),
    new_text: z.string().describe("The text to put in its place"),
  }),
  async execute(args, context) {
    const absolute = resolveInWorkspace(context.cwd, args.path);
    let bytes: Buffer;
    try {
      bytes = await readFile(absolute);
    } catch (error) {
      throw readError(args.path, error);
    }
    const text = bytes.toString("utf8");
    // The file is written back as text: one that is not UTF-8 would lose its other bytes.
    if (!Buffer.from(text, "utf8").equals(bytes)) {
      throw new ToolError(
        "not_utf8",
        `${args.path} is not UTF-8 text.`,
        "Leave it alone: edit_file changes UTF-8 text files only.",
      );
    }
    const count = occurrences(text, args.old_text);
    if (count === 0) {
      throw new ToolError(
        "no_match",
        `old_text does not occur in ${args.path}.`,
        "Call read_file to see the file as it is now, then copy old_text from it exactly.",
      );
    }
    if (count > 1) {
      throw new ToolError(
        "ambiguous_match",
        `old_text occurs ${count} times in ${args.path}; it must occur exactly once.`,
        "Add lines around it to old_text until it is unique.",
      );
    }
    // A function, so "$&" or "$1" in the new text is written as is, not as a replacement pattern.
    await writeFile(
      absolute,
      text.replace(args.old_text, () => args.new_text),
    );
    return { ok: true, content: `Edited ${args.path}: replaced 1 occurrence.` };
  },
});

/** How often `part` occurs in `text`, overlaps included: "}\n}" is twice in "}\n}\n}". */
function occurrences(text: string, part: string): number {
  let count = 0;
  for (let at = text.indexOf(part); at !== -1; at = text.indexOf(part, at + 1)) count++;
  return count;
}
