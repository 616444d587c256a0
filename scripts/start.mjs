#!/usr/bin/env node
// pnpm start [-- ARGS]: the newest chapter's agent (its src/main.ts), the most complete one.
//
// It runs dist/agent.mjs, that main.ts bundled into one file by scripts/build-cli.ts: a start costs
// about what starting Node costs, not a TypeScript loader compiling some 200 modules
// (scripts/lib/run-bundle.mjs). `pnpm chapter N` runs a chapter's source with tsx.
//
// The agent finds the folder the user typed the command in itself (pnpm passes it as INIT_CWD), so
// this process stays in the repository root, as it did under tsx.
import { runBundle } from "./lib/run-bundle.mjs";

await runBundle("agent", "pnpm start", "src/main.ts");
