import { readFile } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { defineTool } from "./define-tool.ts";
import { describeScope, fileMatcher, resolveFolder } from "./list-files.ts";
import { ToolError } from "./tool-error.ts";
import { walkWorkspace } from "./walk-workspace.ts";

export const SEARCH_LIMITS = { maxMatches: 100, maxLineLength: 200, maxFileBytes: 1_000_000 };

export const searchTextTool = defineTool({
  name: "search_text",
  description:
    "Search the text files of the workspace for a string (or a JavaScript regular expression with regex=true). " +
    'Prints one "path:line: text" per matching line. Skips .gitignore\'d files, .git/, node_modules/ and .agent/. ' +
    `At most ${SEARCH_LIMITS.maxMatches} matches per call; narrow with glob or path.`,
  effect: "read",
  schema: z.object({
    query: z.string().min(1).describe("Text to find (case-sensitive)"),
    regex: z.boolean().optional().describe("Treat query as a JavaScript regular expression"),
    glob: z.string().optional().describe('Only files matching this glob, e.g. "**/*.ts"'),
    path: z
      .string()
      .optional()
      .describe('Folder to search, relative to the workspace root (default ".")'),
  }),
  async execute(args, context) {
    const matchesLine = lineMatcher(args.query, args.regex ?? false);
    const folder = await resolveFolder(context.cwd, args.path ?? ".");
    const matchesFile = fileMatcher(args.glob);
    const found: string[] = [];
    let hidden = 0;
    let searched = 0;
    for await (const file of walkWorkspace(context.cwd, folder, context.signal)) {
      if (!matchesFile(file)) continue;
      const lines = await readTextLines(path.join(context.cwd, file));
      if (!lines) continue;
      searched++;
      lines.forEach((line, index) => {
        if (!matchesLine(line)) return;
        if (found.length < SEARCH_LIMITS.maxMatches)
          found.push(`${file}:${index + 1}: ${clip(line)}`);
        else hidden++;
      });
    }
    const scope = describeScope(folder, args.glob);
    if (found.length === 0) {
      return {
        ok: true,
        content: `No matches for "${args.query}" in ${searched} file(s) ${scope}.`,
      };
    }
    if (hidden > 0) found.push(`... ${hidden} more matches not shown; narrow with glob or path`);
    return { ok: true, content: found.join("\n") };
  },
});

function lineMatcher(query: string, isRegex: boolean): (line: string) => boolean {
  if (!isRegex) return (line) => line.includes(query);
  let pattern: RegExp;
  try {
    pattern = new RegExp(query);
  } catch (error) {
    throw new ToolError(
      "invalid_regex",
      // V8 says "Invalid regular expression: /(/: Unterminated group"; keep the reason.
      `"${query}" is not a valid regular expression: ${(error as Error).message.split(": ").at(-1)}.`,
      "Fix the pattern (JavaScript syntax), or call search_text with regex=false to find the literal text.",
    );
  }
  return (line) => pattern.test(line);
}

/** The file's lines, or undefined for binary and very large files, which search skips. */
async function readTextLines(file: string): Promise<string[] | undefined> {
  const bytes = await readFile(file);
  if (bytes.length > SEARCH_LIMITS.maxFileBytes || bytes.includes(0)) return undefined;
  return bytes.toString("utf8").split(/\r?\n/);
}

function clip(line: string): string {
  const trimmed = line.trim();
  return trimmed.length <= SEARCH_LIMITS.maxLineLength
    ? trimmed
    : `${trimmed.slice(0, SEARCH_LIMITS.maxLineLength)}…`;
}
