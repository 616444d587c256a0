import { basename } from "node:path";
import { countTextTokens } from "../context/token-counter.ts";
import { readRegularFile } from "../fs/read-regular-file.ts";
import { isSecretFile, secretFilesAllowed } from "../fs/secret-files.ts";
import { resolveWorkspacePath, WorkspacePathError } from "../fs/workspace-path.ts";
import { walkWorkspace } from "../tools/walk-workspace.ts";
import { largestFitting, shorten } from "./fit-list.ts";

/** A project's own instructions for agents, as far as they fit in the prompt. */
export interface AgentsMd {
  /** Whole lines from the top of the root AGENTS.md, as many as fit the cap. */
  text: string;
  /** When the file is longer than the cap: the last line shown, of how many, and whether that one is cut too. */
  cut?: { line: number; of: number; midLine: boolean };
  /** Why the file is not in the prompt, when it is there but cannot be used. */
  unread?: string;
}

/** An AGENTS.md in a sub-folder, which applies to the files under that folder. */
export interface NestedAgentsMd {
  path: string;
  /** Its first non-empty line, on one line and short: what the prompt lists it by. */
  firstLine: string;
}

// About 16 KB of English. Codex allows 32 KiB, for models with far larger windows: here a request
// has 32,000 tokens by default (context-budget.ts), and an eighth of that goes with every request.
export const AGENTS_MD_MAX_TOKENS = 4_000;
// What is read at all. Tokens are rarely longer than 16 characters, so text beyond that is cut anyway.
const MAX_READ_BYTES = 1024 * 1024;
const MAX_CHARS_PER_TOKEN = 16;
// The walk that finds nested files stops after this many of them, and after this many files.
export const MAX_NESTED_AGENTS_MD = 50;
const MAX_WALKED_FILES = 20_000;
// Control and format characters (escapes, bidi overrides, zero-width ones) have no place in a prompt.
const UNPRINTABLE = /[\p{Cc}\p{Cf}\u2028\u2029]/gu;

/**
 * Reads AGENTS.md at the workspace root; undefined when there is none. It is confined like
 * read_file: a symlink that leads out of the workspace is not followed.
 */
export async function readAgentsMd(
  cwd: string,
  maxTokens = AGENTS_MD_MAX_TOKENS,
): Promise<AgentsMd | undefined> {
  const file = await readInstructions(cwd, "AGENTS.md");
  if (typeof file !== "string") return file;
  const text = file.replace(/\r\n/g, "\n").trim();
  if (text === "") return undefined;
  return cutAtLine(text, maxTokens);
}

/**
 * The AGENTS.md files below the root, found by the walk list_files uses (so .gitignore'd and
 * skipped folders are left out, and symlinks are not followed), each with its first line.
 */
export async function findNestedAgentsMd(
  cwd: string,
): Promise<{ files: NestedAgentsMd[]; complete: boolean }> {
  const paths: string[] = [];
  let walked = 0;
  let complete = true;
  try {
    for await (const path of walkWorkspace(cwd, ".")) {
      walked += 1;
      // A path with a line break or an escape in it could write lines of its own into the prompt.
      const printable = path.search(UNPRINTABLE) === -1;
      if (basename(path) === "AGENTS.md" && path !== "AGENTS.md" && printable) paths.push(path);
      if (paths.length === MAX_NESTED_AGENTS_MD || walked === MAX_WALKED_FILES) {
        complete = false;
        break;
      }
    }
  } catch {
    complete = false; // a folder it cannot read: what was found so far is still worth listing
  }
  const files = await Promise.all(
    paths.map(async (path) => {
      const text = await readInstructions(cwd, path);
      return { path, firstLine: typeof text === "string" ? firstLine(text) : "" };
    }),
  );
  return { files, complete };
}

/** The text of an instructions file; undefined when there is none, or why it is not used. */
async function readInstructions(cwd: string, path: string): Promise<string | AgentsMd | undefined> {
  const unread = (why: string): AgentsMd => ({ text: "", unread: why });
  try {
    const resolved = await resolveWorkspacePath(cwd, path);
    if (!resolved.exists) return undefined;
    // A link to .env inside the workspace is refused by read_file too: it would send the key.
    if (isSecretFile(resolved.relative) && !secretFilesAllowed()) {
      return unread(
        `it leads to ${resolved.relative}, a file of secrets, which read_file refuses too`,
      );
    }
    const { stats, bytes } = await readRegularFile(resolved.absolute, MAX_READ_BYTES);
    // A folder by that name simply means "no instructions"; a FIFO is left unopened for good.
    if (!stats.isFile()) return undefined;
    if (bytes === null) {
      return unread(
        `it is ${stats.size} bytes, more than the ${MAX_READ_BYTES} read for the prompt`,
      );
    }
    return bytes.toString("utf8");
  } catch (error) {
    if (!(error instanceof WorkspacePathError)) throw error;
    return unread("it is a symlink that leads outside the workspace, which read_file refuses too");
  }
}

/** As many whole lines as fit; the first line cut after a word only when even it does not. */
function cutAtLine(text: string, maxTokens: number): AgentsMd {
  const fits = (part: string) => countTextTokens(part) <= maxTokens;
  // Only the start of a long file can fit: counting the rest would only cost time.
  const head = text.slice(0, maxTokens * MAX_CHARS_PER_TOKEN + 1);
  if (head === text && fits(text)) return { text };
  const lines = text.split("\n");
  const firstLines = (n: number) => lines.slice(0, n).join("\n");
  const whole = largestFitting(1, head.split("\n").length, (n) => fits(firstLines(n)));
  if (whole !== undefined) {
    return {
      text: firstLines(whole).trimEnd(),
      cut: { line: whole, of: lines.length, midLine: false },
    };
  }
  const chars = largestFitting(1, head.length, (n) => fits(shorten(lines[0]!, n))) ?? 1;
  return { text: shorten(lines[0]!, chars), cut: { line: 1, of: lines.length, midLine: true } };
}

/** A file's first non-empty line without its heading marks: printable, one line, short. */
function firstLine(text: string): string {
  const line = text.split("\n").find((candidate) => candidate.trim() !== "") ?? "";
  // An escape sequence goes whole: "[2K" left behind would only puzzle the model.
  const clean = line
    // eslint-disable-next-line no-control-regex -- an escape sequence is what it looks for
    .replace(/\u001b\[[0-?]*[ -/]*[@-~]/g, "")
    .replace(UNPRINTABLE, " ")
    .replace(/^\s*#+\s*/, "");
  return shorten(clean.replace(/\s+/g, " ").trim(), 80);
}
