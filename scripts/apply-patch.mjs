#!/usr/bin/env node
// pnpm apply-patch [--cwd DIR] [--expect PATH=SHA256]... [--atomic] [--json] [FILE|-]
// and the `apply-patch` bin: the standalone patch tool of the newest chapter (07 onwards).
//
// It runs dist/apply-patch.mjs, that chapter's CLI bundled into one file by scripts/build-cli.ts, so
// a call costs about what starting Node costs instead of loading tsx and forty TypeScript modules.
// This launcher is plain JavaScript because Node 20 runs no TypeScript without a loader, and the
// loader is the cost being avoided. `pnpm install` builds the bundle (the root "prepare" script);
// when it is missing, the first call builds it, and the bundle rebuilds itself when a source file
// is newer than it (scripts/lib/cli-bundle-start.ts).
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { pathToFileURL } from "node:url";

const root = join(import.meta.dirname, "..");
const bundle = join(root, "dist", "apply-patch.mjs");
if (!existsSync(bundle)) {
  const build = spawnSync(
    process.execPath,
    [
      "--import",
      "tsx",
      join(root, "scripts", "build-cli.ts"),
      "--bundle",
      "apply-patch",
      "--quiet",
    ],
    { cwd: root, stdio: ["ignore", "inherit", "inherit"] },
  );
  if (build.status !== 0) {
    process.stderr.write(`apply-patch: could not build ${bundle}; see above.\n`);
    process.exit(2);
  }
}
// pnpm runs a script from the repository root; the patch applies (and FILE is found) where the user
// typed the command, which pnpm passes as INIT_CWD. Only for the pnpm script: an INIT_CWD inherited
// from some other pnpm script must not move the bin.
if (process.env.npm_lifecycle_event === "apply-patch" && process.env.INIT_CWD !== undefined) {
  process.chdir(process.env.INIT_CWD);
}
// pnpm forwards a literal "--" separator in some versions; the CLI never wants it.
const args = process.argv.slice(2);
process.argv = [process.argv[0], bundle, ...(args[0] === "--" ? args.slice(1) : args)];
await import(pathToFileURL(bundle).href);
