import { z } from "zod";
import { defineTool } from "./define-tool.ts";
import { sha256 } from "../fs/file-hash.ts";
import { describeFileType, readRegularFile } from "../fs/read-regular-file.ts";
import { isSecretFile, secretFilesAllowed } from "../fs/secret-files.ts";
import { ToolError } from "./tool-error.ts";
import { resolveWorkspacePath } from "../fs/workspace-path.ts";

// Caps per call keep one read from flooding the context window.
export const READ_LIMITS = {
  maxLines: 2000,
  maxBytes: 100_000,
  maxLineLength: 2000,
  // Bigger files are refused outright: the whole file is hashed on every read.
  maxFileBytes: 20_000_000,
};

export interface FileView {
  /** What the model reads. */
  text: string;
  /** Workspace-relative path, "/" separated. */
  path: string;
  /** SHA-256 of the whole file's bytes, whatever range was shown. */
  sha256: string;
  /** True when every line was shown in full: the model has seen the whole file. */
  fullRead: boolean;
}

export const readFileTool = defineTool({
  name: "read_file",
  description:
    "Read a text file of the workspace. Output: a header with the file's SHA-256, then numbered lines " +
    `("   12\\tline"). At most ${READ_LIMITS.maxLines} lines per call; use offset and limit for ranges.`,
  effect: "read",
  schema: z.object({
    path: z.string().describe("File path relative to the workspace root"),
    offset: z.number().int().min(1).optional().describe("First line to show (1-based)"),
    limit: z.number().int().min(1).optional().describe("How many lines to show"),
  }),
  async execute(args, context) {
    const view = await viewFile(context.cwd, args.path, args);
    // Only a full read lets the agent patch the file (see hash-guard.ts).
    if (view.fullRead) context.readRecord?.record(view.path, view.sha256);
    return { ok: true, content: view.text };
  },
});

/** Reads a workspace file and renders the requested range for the model. */
export async function viewFile(
  root: string,
  relPath: string,
  range: { offset?: number; limit?: number } = {},
): Promise<FileView> {
  const resolved = await resolveWorkspacePath(root, relPath);
  const where = resolved.relative;
  if (!resolved.exists) {
    throw new ToolError(
      "file_not_found",
      `${where} does not exist.`,
      "Use list_files or search_text to find the right path.",
    );
  }
  // Both names: a link inside the workspace must not rename a secret, nor disguise one.
  if ((isSecretFile(relPath) || isSecretFile(where)) && !secretFilesAllowed()) {
    throw new ToolError(
      "secret_file",
      `${where} looks like a file of secrets (keys, passwords, tokens); read_file does not show it, because what it shows is sent to the model's provider.`,
      "Work without it. If you need a value from it, ask the user.",
    );
  }
  const file = await readRegularFile(resolved.absolute, READ_LIMITS.maxFileBytes);
  const info = file.stats;
  if (info.isDirectory()) {
    throw new ToolError(
      "is_directory",
      `${where} is a directory, not a file.`,
      `Use list_files with path="${where}" to see what it contains.`,
    );
  }
  if (!info.isFile()) {
    throw new ToolError(
      "not_regular_file",
      `${where} is ${describeFileType(info)}, not a regular file: reading it could wait forever or never end.`,
      "read_file reads regular files only; leave this one alone.",
    );
  }
  if (file.bytes === null) {
    throw new ToolError(
      "file_too_large",
      `${where} is ${info.size} bytes, more than read_file handles (${READ_LIMITS.maxFileBytes}).`,
      "Use search_text to find the lines you need in it.",
    );
  }

  const bytes = file.bytes;
  const hash = sha256(bytes);
  if (bytes.includes(0)) {
    throw new ToolError(
      "binary_file",
      `${where} looks like a binary file (it contains NUL bytes), so it cannot be shown as text. Size ${bytes.length} bytes, sha256 ${hash}.`,
      "Read text files only; use list_files to find the source files.",
    );
  }

  const lines = splitLines(bytes.toString("utf8"));
  const first = range.offset ?? 1;
  if (lines.length === 0) {
    return {
      text: `${where}: empty file, full read, sha256 ${hash}`,
      path: where,
      sha256: hash,
      fullRead: true,
    };
  }
  if (first > lines.length) {
    throw new ToolError(
      "invalid_range",
      `offset=${first} is past the end of ${where}, which has ${lines.length} lines.`,
      `Call read_file with an offset between 1 and ${lines.length}.`,
    );
  }
  const wanted = Math.min(lines.length, first - 1 + (range.limit ?? lines.length));
  const shown = renderLines(lines, first, wanted);
  const fullRead = first === 1 && shown.last === lines.length && !shown.cutLines;

  const header = fullRead
    ? `${where}: full read, lines 1-${lines.length} of ${lines.length}, sha256 ${hash}`
    : `${where}: partial read, lines ${first}-${shown.last} of ${lines.length}, sha256 of the whole file ${hash}`;
  const notes: string[] = [];
  if (shown.last < wanted) {
    notes.push(
      `... truncated: lines ${shown.last + 1}-${wanted} not shown; call read_file with offset=${shown.last + 1}`,
    );
  }
  if (shown.cutLines) {
    notes.push(
      `... ${shown.cutLines} long line(s) cut at ${READ_LIMITS.maxLineLength} characters; use search_text to see specific parts`,
    );
  }
  return {
    text: [header, ...shown.rendered, ...notes].join("\n"),
    path: where,
    sha256: hash,
    fullRead,
  };
}

/** Lines without their terminators; a final newline does not start another line. */
function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split(/\r?\n/);
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

/** Numbers lines from `first` to `last` (1-based, inclusive), stopping at the size caps. */
function renderLines(lines: string[], first: number, last: number) {
  const rendered: string[] = [];
  let bytes = 0;
  let cutLines = 0;
  let lineNumber = first;
  for (; lineNumber <= last && rendered.length < READ_LIMITS.maxLines; lineNumber++) {
    let line = lines[lineNumber - 1] ?? "";
    if (line.length > READ_LIMITS.maxLineLength) {
      line = `${line.slice(0, READ_LIMITS.maxLineLength)}… [line cut]`;
      cutLines++;
    }
    const numbered = `${String(lineNumber).padStart(5)}\t${line}`;
    bytes += Buffer.byteLength(numbered) + 1;
    // Always show at least one line, so a read makes progress.
    if (bytes > READ_LIMITS.maxBytes && rendered.length > 0) break;
    rendered.push(numbered);
  }
  return { rendered, last: lineNumber - 1, cutLines };
}
