#!/usr/bin/env node
// pnpm start [-- ARGS]: the newest chapter's agent (its src/main.ts), the most complete one.
//
// It runs dist/agent.mjs, that main.ts bundled into one file by scripts/build-cli.ts: a start costs
// about what starting Node costs, not a TypeScript loader compiling some 200 modules. This launcher
// is plain JavaScript because Node 20 runs no TypeScript without a loader, and the loader is the
// cost being avoided. `pnpm install` builds the bundle (the root "prepare" script); when it is
// missing, the first start builds it, and the bundle rebuilds itself when a source file is newer
// than it (scripts/lib/cli-bundle-start.ts). `pnpm chapter N` runs a chapter's source with tsx.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { pathToFileURL } from "node:url";

const root = join(import.meta.dirname, "..");
const bundle = join(root, "dist", "agent.mjs");
if (!existsSync(bundle)) {
  const build = spawnSync(
    process.execPath,
    ["--import", "tsx", join(root, "scripts", "build-cli.ts"), "--bundle", "agent", "--quiet"],
    { cwd: root, stdio: ["ignore", "ignore", "inherit"] },
  );
  if (build.status !== 0) {
    process.stderr.write(`pnpm start: could not build ${bundle}; see above.\n`);
    process.exit(2);
  }
  if (!existsSync(bundle)) {
    process.stderr.write("pnpm start: no chapter has a src/main.ts yet.\n");
    process.exit(1);
  }
}
// The agent finds the folder the user typed the command in itself (pnpm passes it as INIT_CWD), so
// this process stays in the repository root, as it did under tsx. pnpm forwards a literal "--"
// separator in some versions; the agent never wants it.
const args = process.argv.slice(2);
process.argv = [process.argv[0], bundle, ...(args[0] === "--" ? args.slice(1) : args)];
await import(pathToFileURL(bundle).href);
