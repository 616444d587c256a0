import { readdirSync, type Dirent } from "node:fs";
import { readFile } from "node:fs/promises";
import { setImmediate } from "node:timers/promises";
import path from "node:path";
import ignore, { type Ignore } from "ignore";

/**
 * Which files the agent gets to see when it browses: everything in the
 * workspace except what git ignores and the folders no one should read
 * through (they are huge, generated, or the agent's own records).
 */
export const ALWAYS_SKIPPED = new Set([".git", "node_modules", ".agent"]);

/** A .gitignore applies to paths relative to the folder that holds it. */
interface GitignoreScope {
  folder: string;
  rules: Ignore;
}

/** Told of each entry the walk leaves out, and why: "whose name is not valid UTF-8", for one. */
export type OnSkip = (path: string, why: string) => void;

/**
 * Yields the workspace-relative paths ("/" separated, sorted) of every
 * visible file under `startFolder` (itself workspace-relative, "." for all).
 * Symlinks are not followed: a link could lead outside or into a loop.
 */
export async function* walkWorkspace(
  root: string,
  startFolder: string,
  signal?: AbortSignal,
  onSkip?: OnSkip,
): AsyncGenerator<string> {
  const scopes = await scopesDownTo(root, startFolder);
  yield* walkFolder(root, startFolder, scopes, signal, onSkip);
}

async function* walkFolder(
  root: string,
  folder: string,
  scopes: GitignoreScope[],
  signal?: AbortSignal,
  onSkip?: OnSkip,
): AsyncGenerator<string> {
  // A turn of the event loop before each folder, so an abort (Ctrl-C) lands mid-walk.
  await setImmediate();
  signal?.throwIfAborted();
  const entries = listFolder(root, folder, onSkip);
  // The listing tells whether there is a .gitignore, so most folders cost no failed open. A
  // symlinked .gitignore is not a file here, and git does not follow one either.
  const hasRules = entries.some((entry) => entry.name === ".gitignore" && entry.isFile());
  const here = hasRules ? [...scopes, ...(await loadScope(root, folder))] : scopes;

  for (const entry of entries) {
    const relative = folder === "." ? entry.name : `${folder}/${entry.name}`;
    if (entry.isDirectory()) {
      if (ALWAYS_SKIPPED.has(entry.name) || isIgnored(here, relative, true)) continue;
      yield* walkFolder(root, relative, entered(here, relative), signal, onSkip);
    } else if (entry.isFile() && !isIgnored(here, relative, false)) {
      yield relative;
    }
  }
}

/** A folder's entries, sorted by name. Names are read as bytes: one that is not UTF-8 (`mkdir
 *  $'\xff'`) would decode to a name with U+FFFD in it, which does not exist, so it is skipped. */
function listFolder(root: string, folder: string, onSkip?: OnSkip) {
  const listed: Pick<Dirent, "name" | "isFile" | "isDirectory">[] = [];
  try {
    // Synchronous, like search_text's reads: a walk makes thousands of small calls, and for a
    // small call the round trip through Node's thread pool costs more than the call itself.
    const options = { withFileTypes: true, encoding: "buffer" } as const;
    for (const entry of readdirSync(path.join(root, folder), options)) {
      const name = entry.name.toString();
      if (Buffer.from(name).equals(entry.name)) listed.push(Object.assign(entry, { name }));
      else onSkip?.(path.posix.join(folder, name), "whose name is not valid UTF-8");
    }
  } catch (error) {
    // A path over the OS limit, or no permission: the rest of the workspace is still listed.
    onSkip?.(folder, `that could not be read (${(error as { code?: string }).code})`);
  }
  return listed.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** "(skipped 1 entry whose name is not valid UTF-8)": what list_files and search_text add. */
export function describeSkipped(whys: readonly string[]): string[] {
  const counts = new Map<string, number>();
  for (const why of whys) counts.set(why, (counts.get(why) ?? 0) + 1);
  return [...counts].map(([why, n]) => `(skipped ${n === 1 ? "1 entry" : `${n} entries`} ${why})`);
}

/** The rules in force at `startFolder`: .git/info/exclude (the weakest), then the .gitignore files
 *  above it. core.excludesFile is not read: it is the machine's, outside the workspace. */
async function scopesDownTo(root: string, startFolder: string): Promise<GitignoreScope[]> {
  let scopes = await loadScope(root, ".", ".git/info/exclude");
  let folder = ".";
  const parts = startFolder === "." ? [] : startFolder.split("/");
  for (const part of parts) {
    scopes.push(...(await loadScope(root, folder)));
    folder = folder === "." ? part : `${folder}/${part}`;
    if (!isIgnored(scopes, folder, true)) scopes = entered(scopes, folder);
  }
  return scopes;
}

async function loadScope(root: string, folder: string, file = ".gitignore") {
  try {
    const text = await readFile(path.join(root, folder, file), "utf8");
    // git on Linux matches case-sensitively: a "CHANGELOG.md" rule leaves changelog.md visible.
    return [{ folder, rules: ignore({ ignorecase: false }).add(text) }];
  } catch {
    return [];
  }
}

/** As in git, the deepest .gitignore with a rule matching the path decides (in it, the last such
 *  rule): a `!keep.log` in sub/ re-includes what the root's `*.log` ignores. */
function isIgnored(scopes: GitignoreScope[], relative: string, isFolder: boolean): boolean {
  for (const scope of scopes.toReversed()) {
    const inScope = scope.folder === "." ? relative : relative.slice(scope.folder.length + 1);
    // The "ignore" package recognises folder-only rules ("dist/") by the trailing slash.
    const verdict = scope.rules.test(isFolder ? `${inScope}/` : inScope);
    if (verdict.ignored || verdict.unignored) return verdict.ignored;
  }
  return false;
}

/** "ignore" takes all under a folder it ignores as ignored; but inside a folder a deeper .gitignore
 *  re-included, git matches each path on its own. So such a scope gets a rule re-including it. */
function entered(scopes: GitignoreScope[], folder: string): GitignoreScope[] {
  return scopes.map((scope) => {
    const own = scope.folder === "." ? folder : folder.slice(scope.folder.length + 1);
    if (!scope.rules.test(`${own}/`).ignored) return scope;
    const literal = own.replace(/[\\*?[\]!# ]/g, "\\$&");
    return { ...scope, rules: ignore({ ignorecase: false }).add(scope.rules).add(`!/${literal}/`) };
  });
}
