import { lstat, realpath } from "node:fs/promises";
import path from "node:path";
import { resolveWorkspacePath, WorkspacePathError } from "../fs/workspace-path.ts";
import { PatchError } from "./patch-errors.ts";

/**
 * Reading may follow a symlink that stays inside the workspace; writing may not.
 * A write through a link changes a file the patch never named, so apply_patch
 * only writes real paths, and never into folders that tools own (.git/,
 * node_modules/, the agent's own .agent/).
 */
export interface WritePath {
  /** Real absolute path: the key for write leases. */
  absolute: string;
  /** Workspace-relative, "/"-separated: the key for hashes, backups and results. */
  relative: string;
}

/** Suffixes of text files a patch may write. Files without a suffix (Makefile, LICENSE) are allowed too. */
// prettier-ignore
export const DEFAULT_ALLOWED_SUFFIXES: readonly string[] = [
  ".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs", ".json", ".jsonc", ".json5",
  ".md", ".mdx", ".markdown", ".txt", ".rst", ".adoc",
  ".html", ".htm", ".css", ".scss", ".sass", ".less", ".vue", ".svelte", ".astro", ".svg", ".xml",
  ".yaml", ".yml", ".toml", ".ini", ".cfg", ".conf", ".properties", ".csv", ".tsv", ".sql", ".graphql", ".gql",
  ".py", ".pyi", ".rb", ".go", ".rs", ".java", ".kt", ".kts", ".scala", ".groovy", ".gradle", ".swift", ".m",
  ".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".cs", ".fs", ".php", ".pl", ".lua", ".r", ".jl",
  ".dart", ".ex", ".exs", ".erl", ".hs", ".ml", ".clj", ".elm", ".zig", ".nim", ".sol", ".proto",
  ".sh", ".bash", ".zsh", ".fish", ".ps1", ".bat", ".cmd", ".mk", ".cmake", ".dockerfile", ".tf", ".hcl",
  ".gitignore", ".gitattributes", ".editorconfig", ".prettierrc", ".eslintrc", ".npmrc", ".nvmrc", ".lock",
];

/** Folders whose contents other tools own, with the reason the model reads. */
const OWNED_FOLDERS: Record<string, { owner: string; hint: string }> = {
  ".git": {
    owner: "git's own database",
    hint: "Leave .git/ alone: change the working tree files, git records them.",
  },
  node_modules: {
    owner: "installed packages",
    hint: "Change the project's own sources or package.json instead; installed packages are rewritten on every install.",
  },
  ".agent": {
    owner: "the agent's own records (runs, backups, notes)",
    hint: "Leave .agent/ alone: the harness writes it.",
  },
};

/** Resolves a path a patch wants to write, or throws a PatchError the model can act on. */
export async function resolveWritePath(
  root: string,
  relPath: string,
  allowedSuffixes: readonly string[] = DEFAULT_ALLOWED_SUFFIXES,
): Promise<WritePath> {
  const resolved = await resolveReadablePath(root, relPath);
  // resolveWorkspacePath follows links inside the workspace; walk the path as spelled to find them.
  const realRoot = await realpath(root);
  await refuseSymlinkOnTheWay(
    realRoot,
    toPosix(path.relative(realRoot, path.resolve(realRoot, relPath))),
  );
  refuseOwnedFolder(resolved.relative);
  refuseSuffix(resolved.relative, allowedSuffixes);
  return { absolute: resolved.absolute, relative: resolved.relative };
}

async function resolveReadablePath(root: string, relPath: string) {
  try {
    const resolved = await resolveWorkspacePath(root, relPath);
    if (resolved.relative === ".") {
      throw new PatchError(
        "path_escape",
        `Path "${relPath}" is the workspace root itself, not a file.`,
        'Name a file inside the workspace, such as "src/index.ts".',
      );
    }
    return resolved;
  } catch (error) {
    if (error instanceof WorkspacePathError)
      throw new PatchError(error.code, error.message, error.hint);
    throw error;
  }
}

function refuseOwnedFolder(relative: string): void {
  for (const segment of relative.split("/").slice(0, -1)) {
    const key = segment.toLowerCase(); // on macOS and Windows, .GIT/ is .git/
    const owned = Object.hasOwn(OWNED_FOLDERS, key) ? OWNED_FOLDERS[key] : undefined;
    if (owned !== undefined) {
      throw new PatchError(
        "disallowed_path",
        `Refusing to write ${relative}: ${segment}/ holds ${owned.owner}, which apply_patch never edits.`,
        owned.hint,
      );
    }
  }
}

function refuseSuffix(relative: string, allowedSuffixes: readonly string[]): void {
  const name = path.posix.basename(relative).toLowerCase();
  const suffix = suffixOf(name);
  if (suffix === "" || allowedSuffixes.includes(suffix)) return;
  throw new PatchError(
    "disallowed_path",
    `Refusing to write ${relative}: "${suffix}" files are not on apply_patch's list of text file suffixes (binary files and secrets are kept out).`,
    `Patch source and text files only. If ${relative} really is plain text, ask the user to add "${suffix}" to the allowed suffixes.`,
  );
}

/** ".env" and ".env.local" count as the suffix ".env"; "Makefile" has none. */
function suffixOf(name: string): string {
  if (name.startsWith(".env")) return ".env";
  const dot = name.lastIndexOf(".");
  return dot === -1 ? "" : name.slice(dot);
}

/** Walks the path from the root: any existing part that is a symlink would redirect the write. */
async function refuseSymlinkOnTheWay(realRoot: string, relative: string): Promise<void> {
  let current = realRoot;
  for (const segment of relative.split("/")) {
    current = path.join(current, segment);
    const stats = await lstat(current).catch(() => undefined);
    if (stats === undefined) return; // the rest does not exist yet: nothing to follow
    if (stats.isSymbolicLink()) {
      const link = toPosix(path.relative(realRoot, current));
      throw new PatchError(
        "symlink",
        `Refusing to write ${relative}: ${link} is a symbolic link, and apply_patch does not write through links.`,
        "Patch the file the link points to, using its real path.",
      );
    }
  }
}

function toPosix(p: string): string {
  return p.split(path.sep).join("/");
}
