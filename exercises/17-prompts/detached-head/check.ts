// Exercise "A detached HEAD names its commit": on a detached HEAD the git state's branch reads
// "(detached HEAD at <short hash>)", and plain "(detached HEAD)" when even the hash is unknown.
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

type GitRunner = (args: string[], cwd: string) => Promise<string>;

interface GitStateModule {
  readGitState(
    cwd: string,
    git?: GitRunner,
  ): Promise<{ branch: string; status: string[]; omitted: number } | undefined>;
}

const HASH = "1a2b3c4";

/** A repository whose HEAD is detached at HASH; `hashKnown` false makes every other command fail. */
function detachedGit(hashKnown: boolean): GitRunner {
  return async (args) => {
    if (args[0] === "symbolic-ref") throw new Error("fatal: ref HEAD is not a symbolic ref");
    if (args.includes("--is-inside-work-tree")) return "true\n";
    if (args[0] === "status") return "";
    if (!hashKnown) throw new Error("fatal: git failed");
    // Whichever command a solution uses for the hash (rev-parse --short HEAD, log -1 --format=%h).
    return `${HASH}\n`;
  };
}

export default async function check(chapterDir: string): Promise<void> {
  const url = pathToFileURL(join(chapterDir, "src/prompts/git-state.ts")).href;
  const { readGitState } = (await import(url)) as GitStateModule;
  // No file system and no real git: the check needs no folder at all.
  const cwd = "/nowhere";

  const state = await readGitState(cwd, detachedGit(true));
  assert.ok(state, "a detached HEAD is still a git repository: readGitState should not give up");
  assert.equal(
    state.branch,
    `(detached HEAD at ${HASH})`,
    "on a detached HEAD the branch should name the commit: (detached HEAD at <git rev-parse --short HEAD>)",
  );

  const unknown = await readGitState(cwd, detachedGit(false));
  assert.equal(
    unknown?.branch,
    "(detached HEAD)",
    "when the hash cannot be read either, say (detached HEAD): the prompt must never fail because of git",
  );
}
