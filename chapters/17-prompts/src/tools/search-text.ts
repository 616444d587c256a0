import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import path from "node:path";
import { setFlagsFromString } from "node:v8";
import { z } from "zod";
import { OPEN_FLAGS } from "../fs/read-regular-file.ts";
import { isSecretFile, secretFilesAllowed } from "../fs/secret-files.ts";
import { defineTool } from "./define-tool.ts";
import { describeScope, fileMatcher, resolveFolder } from "./list-files.ts";
import { ToolError } from "./tool-error.ts";
import { describeSkipped, walkWorkspace } from "./walk-workspace.ts";

// The model's patterns run on V8's linear-time engine (the "l" flag), so none can hang the agent by
// catastrophic backtracking, as "(a+)+$" does on a long line; the flag lets a RegExp ask for it.
setFlagsFromString("--enable-experimental-regexp-engine");

export const SEARCH_LIMITS = { maxMatches: 100, maxLineLength: 200, maxFileBytes: 1_000_000 };

export const searchTextTool = defineTool({
  name: "search_text",
  description:
    "Search the workspace's text files for a string, or a JavaScript regular expression with " +
    'regex=true; skips what list_files skips. Prints "path:line: text" per match; ' +
    `at most ${SEARCH_LIMITS.maxMatches} per call, narrow with glob or path.`,
  effect: "read",
  schema: z.object({
    query: z.string().min(1).describe("Case-sensitive"),
    regex: z.boolean().optional(),
    glob: z.string().optional().describe('e.g. "**/*.ts"'),
    path: z.string().optional().describe('Folder (default ".")'),
  }),
  async execute(args, context) {
    const query = compileQuery(args.query, args.regex ?? false);
    const folder = await resolveFolder(context.cwd, args.path ?? ".");
    const matchesFile = fileMatcher(args.glob);
    const found: string[] = [];
    let total = 0;
    let searched = 0;
    let secrets = 0;
    const unlisted: string[] = [];
    const onSkip = (_path: string, why: string) => unlisted.push(why);
    for await (const file of walkWorkspace(context.cwd, folder, context.signal, onSkip)) {
      if (!matchesFile(file)) continue;
      // Whatever a match shows goes to the model's provider: a key in .env must not.
      if (isSecretFile(file) && !secretFilesAllowed()) {
        secrets++;
        continue;
      }
      const bytes = readSearchable(path.join(context.cwd, file));
      if (!bytes) continue;
      searched++;
      for (const [index, line] of matchingLines(bytes, query)) {
        // Past the cap a match is only counted, so the model learns how much it did not see.
        if (total++ < SEARCH_LIMITS.maxMatches) found.push(`${file}:${index + 1}: ${clip(line)}`);
      }
    }
    const scope = describeScope(folder, args.glob);
    const skipped = describeSkipped(unlisted);
    if (secrets > 0) skipped.unshift(`(${secrets} file(s) of secrets, such as .env, not searched)`);
    if (total === 0) {
      const none = `No matches for "${args.query}" in ${searched} file(s) ${scope}.`;
      return { ok: true, content: [none, ...skipped].join("\n") };
    }
    const hidden = total - found.length;
    if (hidden > 0) found.push(`... ${hidden} more matches not shown; narrow with glob or path`);
    return { ok: true, content: [...found, ...skipped].join("\n") };
  },
});

/** The query, compiled once: `inFile` rules a whole file in or out, `inLine` finds its lines. */
export interface Query {
  inFile(bytes: Buffer): boolean;
  inLine(line: string): boolean;
}

export function compileQuery(query: string, isRegex: boolean): Query {
  if (!isRegex) {
    // A literal is looked for in the raw bytes: a file without it is never even decoded.
    return { inFile: (bytes) => bytes.includes(query), inLine: (line) => line.includes(query) };
  }
  let pattern: RegExp;
  try {
    pattern = new RegExp(query, "l");
  } catch (error) {
    throw new ToolError(
      "invalid_regex",
      // V8 says "Invalid regular expression: /(/: Unterminated group"; keep the reason.
      `"${query}" is not a valid regular expression: ${(error as Error).message.split(": ").at(-1)}.`,
      "Fix the pattern (JavaScript syntax, without backreferences or lookaround), or call search_text with regex=false to find the literal text.",
    );
  }
  // With the m flag ^ and $ match at every line break, so a pattern that matches a line
  // of the file also matches its whole text.
  const inAnyLine = new RegExp(query, "lm");
  return {
    inFile: (bytes) => inAnyLine.test(bytes.toString("utf8")),
    inLine: (line) => pattern.test(line),
  };
}

/** The matching lines of one file, as [index, text]. Most files have none and are never split. */
export function matchingLines(bytes: Buffer, query: Query): [number, string][] {
  if (!query.inFile(bytes)) return [];
  const lines = bytes.toString("utf8").split(/\r?\n/);
  const matches: [number, string][] = [];
  lines.forEach((line, index) => {
    if (query.inLine(line)) matches.push([index, line]);
  });
  return matches;
}

/**
 * The file's bytes, or undefined for what search skips: binary files (a NUL byte, the same test
 * read_file uses), files over maxFileBytes (their size is checked before reading), and anything
 * that is not a regular file. Synchronous on purpose, like the walk's listings: a search reads
 * thousands of small files, and for a small file an async read's round trip through Node's
 * thread pool costs several times the read itself.
 */
function readSearchable(file: string): Buffer | undefined {
  const fd = openSync(file, OPEN_FLAGS);
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile() || stats.size > SEARCH_LIMITS.maxFileBytes) return undefined;
    // Read into a buffer of the size just checked (readFileSync would fstat a second time).
    const bytes = Buffer.allocUnsafe(stats.size);
    let length = 0;
    while (length < bytes.length) {
      const read = readSync(fd, bytes, length, bytes.length - length, length);
      if (read === 0) break; // the file shrank since the fstat
      length += read;
    }
    const text = bytes.subarray(0, length);
    return text.includes(0) ? undefined : text;
  } finally {
    closeSync(fd);
  }
}

function clip(line: string): string {
  const trimmed = line.trim();
  return trimmed.length <= SEARCH_LIMITS.maxLineLength
    ? trimmed
    : `${trimmed.slice(0, SEARCH_LIMITS.maxLineLength)}…`;
}
