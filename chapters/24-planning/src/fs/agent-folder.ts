import { lstat, readlink, realpath } from "node:fs/promises";
import path from "node:path";

/**
 * `.agent/` holds what the agent keeps about a workspace: runs, backups,
 * notes. A symlink there would send all of it somewhere else, and a cloned
 * repository can ship one, so every writer checks the folder first.
 */
export class AgentFolderError extends Error {
  constructor(
    readonly reason: string,
    readonly hint: string,
  ) {
    super(`${reason} ${hint}`);
    this.name = "AgentFolderError";
  }
}

/** The real path of `<workspace>/.agent` (it may not exist yet); refuses a symlink there or in its folders. */
export async function agentFolder(cwd: string): Promise<string> {
  const folder = path.join(await realpath(cwd), ".agent");
  for (const name of ["", "runs", "backups", "notes", "locks"]) {
    const link = path.join(folder, name);
    if ((await lstat(link).catch(() => undefined))?.isSymbolicLink()) {
      throw new AgentFolderError(
        `${link} is a symbolic link to ${await readlink(link)}, so the agent's runs, backups and notes would be written there.`,
        "Remove the link (a repository should not ship one) or replace it with a real folder, then run again.",
      );
    }
  }
  return folder;
}
