import { readFile, stat, writeFile } from "node:fs/promises";
import { z } from "zod";
import { defineTool } from "./define-tool.ts";
import { ToolError } from "./tool-error.ts";
import { isSecretFile, secretFilesAllowed } from "../fs/secret-files.ts";
import { resolveWorkspacePath } from "../fs/workspace-path.ts";

/** Chapter 3's edit behind the guards: a real path in the workspace, never a secret file. */
export const editFileTool = defineTool({
  name: "edit_file",
  description: "Replace old_text, which must occur exactly once, with new_text in a file.",
  effect: "write",
  schema: z.object({
    path: z.string().describe("File path relative to the workspace root"),
    old_text: z
      .string()
      .min(1)
      .describe("The exact text to replace, with enough lines to be unique"),
    new_text: z.string().describe("The text to put in its place"),
  }),
  async execute({ path, old_text, new_text }, context) {
    const { absolute, relative, exists } = await resolveWorkspacePath(context.cwd, path);
    const refuse = (code: string, why: string) => new ToolError(code, why, "Read the file again.");
    if (!exists || !(await stat(absolute)).isFile())
      throw refuse("file_not_found", `${relative} is not a file.`);
    // Even a failed edit tells the model whether old_text is in the file: no secret files at all.
    if ((isSecretFile(path) || isSecretFile(relative)) && !secretFilesAllowed())
      throw refuse("secret_file", `${relative} looks like a file of secrets: leave it alone.`);
    const bytes = await readFile(absolute);
    const text = bytes.toString("utf8");
    // The file is written back as text: one that is not UTF-8 would lose its other bytes.
    if (!Buffer.from(text, "utf8").equals(bytes))
      throw refuse("not_utf8", `${relative} is not UTF-8 text: leave it alone.`);
    const count = occurrences(text, old_text);
    if (count === 0) throw refuse("no_match", `old_text is not in ${relative}.`);
    if (count > 1) throw refuse("ambiguous_match", `old_text occurs ${count} times: add lines.`);
    // A function, so "$&" or "$1" in the new text is written as is, not as a replacement pattern.
    await writeFile(
      absolute,
      text.replace(old_text, () => new_text),
    );
    return { ok: true, content: `Edited ${relative}: replaced 1 occurrence.` };
  },
});

/** How often `part` occurs in `text`, overlaps included: "}\n}" is twice in "}\n}\n}". */
function occurrences(text: string, part: string): number {
  let count = 0;
  for (let at = text.indexOf(part); at !== -1; at = text.indexOf(part, at + 1)) count++;
  return count;
}
