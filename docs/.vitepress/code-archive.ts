// The code, from the site: `docs:build` writes the repository as committed into the built site,
// as build-a-coding-agent.tar.gz and .zip, so the home page and every chapter page can offer it.
// There is no public repository to clone, so this archive is how a reader gets the code.
//
// In a git checkout the archive is `git archive HEAD`: exactly the committed files (no
// node_modules, no build output, no .env), whatever else lies in the working tree; uncommitted
// changes are not in it. Built from an unpacked archive (no .git), it packs the same tree again,
// leaving out what .gitignore leaves out.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./chapters.ts";

export const ARCHIVE_NAME = "build-a-coding-agent";
/** Left out when there is no git to ask: what .gitignore lists. */
const UNTRACKED = ["node_modules", ".agent", "dist", "coverage", "cache", "test-results", ".env"];

function run(command: string, args: string[], cwd = ROOT): void {
  const result = spawnSync(command, args, { cwd, encoding: "utf8" });
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(" ")} failed: ${result.stderr || result.error?.message}`,
    );
  }
}

export function inGitCheckout(): boolean {
  const result = spawnSync("git", ["rev-parse", "--show-toplevel"], {
    cwd: ROOT,
    encoding: "utf8",
  });
  return result.status === 0 && existsSync(join(ROOT, ".git"));
}

/** The archive's formats: .zip too where git can write it. */
export function archiveFormats(): string[] {
  return inGitCheckout() ? ["tar.gz", "zip"] : ["tar.gz"];
}

/** Writes <outDir>/build-a-coding-agent.tar.gz and .zip, each unpacking into build-a-coding-agent/. */
export function writeCodeArchives(outDir: string): string[] {
  const tarGz = join(outDir, `${ARCHIVE_NAME}.tar.gz`);
  const zip = join(outDir, `${ARCHIVE_NAME}.zip`);
  const prefix = `--prefix=${ARCHIVE_NAME}/`;
  if (inGitCheckout()) {
    run("git", ["archive", "--format=tar.gz", prefix, "-o", tarGz, "HEAD"]);
    run("git", ["archive", "--format=zip", prefix, "-o", zip, "HEAD"]);
    return [tarGz, zip];
  }
  const excludes = UNTRACKED.map((name) => `--exclude=${name}`);
  run("tar", ["-czf", tarGz, ...excludes, `--transform=s,^\\.,${ARCHIVE_NAME},`, "."]);
  return [tarGz];
}
