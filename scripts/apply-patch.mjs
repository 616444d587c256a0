#!/usr/bin/env node
// pnpm apply-patch [--cwd DIR] [--expect PATH=SHA256]... [--atomic] [--json] [FILE|-]
// and the `apply-patch` bin: the standalone patch tool of the newest chapter (11 onwards).
//
// It runs dist/apply-patch.mjs, that chapter's CLI bundled into one file by scripts/build-cli.ts, so
// a call costs about what starting Node costs instead of loading tsx and forty TypeScript modules
// (scripts/lib/run-bundle.mjs).
import process from "node:process";
import { runBundle } from "./lib/run-bundle.mjs";

// pnpm runs a script from the repository root; the patch applies (and FILE is found) where the user
// typed the command, which pnpm passes as INIT_CWD. Only for the pnpm script: an INIT_CWD inherited
// from some other pnpm script must not move the bin.
if (process.env.npm_lifecycle_event === "apply-patch" && process.env.INIT_CWD !== undefined) {
  process.chdir(process.env.INIT_CWD);
}
await runBundle("apply-patch", "apply-patch", "src/apply-patch-cli.ts");
