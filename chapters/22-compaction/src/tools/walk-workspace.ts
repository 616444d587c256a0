import { readdirSync } from "node:fs";
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

/**
 * Yields the workspace-relative paths ("/" separated, sorted) of every
 * visible file under `startFolder` (itself workspace-relative, "." for all).
 * Symlinks are not followed: a link could lead outside or into a loop.
 */
export async function* walkWorkspace(
  root: string,
  startFolder: string,
  signal?: AbortSignal,
): AsyncGenerator<string> {
  const scopes = await scopesDownTo(root, startFolder);
  yield* walkFolder(root, startFolder, scopes, signal);
}

async function* walkFolder(
  root: string,
  folder: string,
  scopes: GitignoreScope[],
  signal?: AbortSignal,
): AsyncGenerator<string> {
  // A turn of the event loop before each folder, so an abort (Ctrl-C) lands mid-walk.
  await setImmediate();
  signal?.throwIfAborted();
  // Synchronous, like search_text's reads: a walk makes thousands of small calls, and for a
  // small call the round trip through Node's thread pool costs more than the call itself.
  const entries = readdirSync(path.join(root, folder), { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  // The listing tells whether there is a .gitignore, so most folders cost no failed open. A
  // symlinked .gitignore is not a file here, and git does not follow one either.
  const hasRules = entries.some((entry) => entry.name === ".gitignore" && entry.isFile());
  const here = hasRules ? [...scopes, ...(await loadScope(root, folder))] : scopes;

  for (const entry of entries) {
    const relative = folder === "." ? entry.name : `${folder}/${entry.name}`;
    if (entry.isDirectory()) {
      if (ALWAYS_SKIPPED.has(entry.name) || isIgnored(here, relative, true)) continue;
      yield* walkFolder(root, relative, here, signal);
    } else if (entry.isFile() && !isIgnored(here, relative, false)) {
      yield relative;
    }
  }
}

/** The .gitignore files of the folders above `startFolder`, which still apply inside it. */
async function scopesDownTo(root: string, startFolder: string): Promise<GitignoreScope[]> {
  const scopes: GitignoreScope[] = [];
  let folder = ".";
  const parts = startFolder === "." ? [] : startFolder.split("/");
  for (const part of parts) {
    scopes.push(...(await loadScope(root, folder)));
    folder = folder === "." ? part : `${folder}/${part}`;
  }
  return scopes;
}

async function loadScope(root: string, folder: string): Promise<GitignoreScope[]> {
  try {
    const text = await readFile(path.join(root, folder, ".gitignore"), "utf8");
    // git on Linux matches case-sensitively: a "CHANGELOG.md" rule leaves changelog.md visible.
    return [{ folder, rules: ignore({ ignorecase: false }).add(text) }];
  } catch {
    return [];
  }
}

function isIgnored(scopes: GitignoreScope[], relative: string, isFolder: boolean): boolean {
  return scopes.some((scope) => {
    const inScope = scope.folder === "." ? relative : relative.slice(scope.folder.length + 1);
    // The "ignore" package recognises folder-only rules ("dist/") by the trailing slash.
    return scope.rules.ignores(isFolder ? `${inScope}/` : inScope);
  });
}
