// apply-patch [--cwd DIR] [--expect PATH=SHA256]... [--atomic] [--json] [FILE|-]
//
// The standalone patch tool (`pnpm apply-patch`). The patch comes from FILE, or
// from stdin when FILE is "-" or absent. Like Codex's own harness, the patch
// may also be passed as the argument itself: an argument that is not an
// existing file and contains a newline or starts with "*** Begin Patch" is
// taken as the patch text.
//
// Exit status: 0 everything applied, 1 something failed (the report says what,
// and what was still applied), 2 usage error.
import { isUtf8 } from "node:buffer";
import { stat } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { describeFileType, readRegularFile } from "./fs/read-regular-file.ts";
import { applyPatch, type ApplyPatchResult } from "./patch/apply-patch.ts";

const USAGE =
  "usage: apply-patch [--cwd DIR] [--expect PATH=SHA256]... [--atomic] [--json] [FILE|-]";

/** Where the CLI reads and writes; tests pass their own to run main() in-process. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** The whole of stdin, or undefined when stdin is a terminal (nobody is piping a patch). */
  readStdin: () => Promise<string | undefined>;
}

/** A mistake in how the command was called: exit 2 with the usage line. */
class UsageError extends Error {}

interface CliRequest {
  cwd: string;
  expected: Map<string, string>;
  atomic: boolean;
  json: boolean;
  source: string | undefined;
}

export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  let request: CliRequest | "help";
  let patchText: string;
  try {
    request = await parseRequest(argv);
    if (request === "help") {
      io.stdout(USAGE + "\n");
      return 0;
    }
    patchText = await readPatch(request.source, io);
  } catch (error) {
    if (!(error instanceof UsageError) && !isParseArgsError(error)) throw error;
    io.stderr(`apply-patch: ${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }

  const result = await applyPatch(patchText, {
    cwd: request.cwd,
    expect: (relative) => request.expected.get(relative),
    atomic: request.atomic,
  });
  if (request.json) io.stdout(JSON.stringify(result) + "\n");
  else if (result.success) io.stdout(successReport(result));
  else io.stderr(failureReport(result));
  if (!request.json) io.stderr(remarks(result));
  return result.success ? 0 : 1;
}

async function parseRequest(argv: string[]): Promise<CliRequest | "help"> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      cwd: { type: "string" },
      expect: { type: "string", multiple: true },
      atomic: { type: "boolean" },
      json: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) return "help";
  if (positionals.length > 1) {
    throw new UsageError(
      `expected at most one patch (FILE, "-" or the patch text), got ${positionals.length} arguments. Quote the patch text as one argument.`,
    );
  }
  const cwd = path.resolve(values.cwd ?? ".");
  const isFolder = (await stat(cwd).catch(() => undefined))?.isDirectory();
  if (!isFolder) throw new UsageError(`--cwd ${cwd} is not an existing directory.`);
  return {
    cwd,
    expected: parseExpectations(values.expect ?? []),
    atomic: values.atomic === true,
    json: values.json === true,
    source: positionals[0],
  };
}

/** --expect PATH=SHA256, keyed by the normalised workspace-relative path, as apply_patch asks for it. */
function parseExpectations(flags: string[]): Map<string, string> {
  const expected = new Map<string, string>();
  for (const flag of flags) {
    const at = flag.lastIndexOf("=");
    const file = flag.slice(0, at);
    const hash = flag.slice(at + 1).toLowerCase();
    if (at <= 0 || !/^[0-9a-f]{64}$/.test(hash)) {
      throw new UsageError(
        `--expect ${flag}: write it as PATH=SHA256, the file's path and the 64 hex digits of its SHA-256 (sha256sum prints them).`,
      );
    }
    expected.set(path.posix.normalize(file.replaceAll("\\", "/")), hash);
  }
  return expected;
}

async function readPatch(source: string | undefined, io: CliIo): Promise<string> {
  if (source === undefined || source === "-") {
    const text = await io.readStdin();
    if (text === undefined)
      throw new UsageError("no patch given: pass FILE, or pipe the patch into stdin.");
    return text;
  }
  const file = await readRegularFile(source).catch((error: NodeJS.ErrnoException) => error);
  if (file instanceof Error) {
    // ENAMETOOLONG and friends just mean "not a file": the argument may be a long patch.
    if (source.includes("\n") || source.trimStart().startsWith("*** Begin Patch")) return source;
    const missing = file.code === "ENOENT" || file.code === "ENOTDIR";
    throw new UsageError(missing ? `no such patch file: ${source}` : file.message);
  }
  if (file.bytes === null)
    throw new UsageError(`${source} is ${describeFileType(file.stats)}, not a patch file.`);
  return decodePatch(file.bytes, source);
}

/** A patch is text: bytes that are not UTF-8 would be written into files as U+FFFD. */
function decodePatch(bytes: Buffer, from: string): string {
  if (isUtf8(bytes)) return bytes.toString("utf8");
  throw new UsageError(`${from} is not UTF-8 text; convert it first (iconv -t UTF-8).`);
}

/** Codex's summary: added, then modified (a move counts as its new path), then deleted. */
function successReport(result: ApplyPatchResult): string {
  return "Success. Updated the following files:\n" + changedLines(result);
}

function changedLines(result: ApplyPatchResult): string {
  const letter = { add: "A", update: "M", move: "M", delete: "D" } as const;
  const lines: string[] = [];
  for (const wanted of ["A", "M", "D"]) {
    for (const change of result.changed) {
      if (letter[change.op] === wanted) lines.push(`${wanted} ${change.path}\n`);
    }
  }
  return lines.join("");
}

function failureReport(result: ApplyPatchResult): string {
  const out: string[] = [];
  for (const failure of result.failures) {
    const where = failure.path === "" ? "" : ` ${failure.path}`;
    out.push(`error [${failure.code}]${where}: ${failure.message}\n`, `  hint: ${failure.hint}\n`);
    if (failure.current_sha256 !== undefined)
      out.push(`  current sha256: ${failure.current_sha256}\n`);
  }
  out.push(
    result.changed.length === 0
      ? "No files were modified.\n"
      : "These files were still updated:\n" + changedLines(result),
  );
  if (result.remaining_patch !== null) {
    out.push("Remaining patch (fix the cause, then apply this):\n", result.remaining_patch);
  }
  return out.join("");
}

/** Repairs and notes go to stderr, so stdout stays exactly Codex's summary. */
function remarks(result: ApplyPatchResult): string {
  const lines = [...result.repairs, ...(result.notes ?? [])];
  return lines.map((line) => `note: ${line}\n`).join("");
}

function isParseArgsError(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code ?? "";
  return code.startsWith("ERR_PARSE_ARGS_");
}

function processIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    readStdin: async () => {
      if (process.stdin.isTTY) return undefined;
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return decodePatch(Buffer.concat(chunks), "the patch on stdin");
    },
  };
}

// Run when started as a program (tsx src/apply-patch-cli.ts), not when imported.
if (
  process.argv[1] !== undefined &&
  import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href
) {
  process.exitCode = await main(process.argv.slice(2));
}
