// The first module a bundle in dist/ runs (apply-patch.mjs, agent.mjs), before the chapter's own
// (ES modules run their imports in order, and the bundle's entry imports this one first). Two jobs:
// 1. The entry runs main() only when it is the program: it compares process.argv[1] with its own
//    file. Started through a bin symlink, the pnpm launcher or scripts/start.mjs, argv[1] names
//    another path, yet the bundle is always the program; so argv[1] becomes the bundle.
// 2. A stale bundle must never run old code: when a source file is newer than the bundle (or a
//    newer chapter has the entry), rebuild it and run the new one in a child process instead.
import { spawnSync } from "node:child_process";
import { basename } from "node:path";
import { readManifest, staleReason } from "./cli-bundle.ts";

const bundle = import.meta.filename;
const name = basename(bundle, ".mjs");
process.argv[1] = bundle;

/**
 * Set to the bundle's path for the child that runs a just-rebuilt bundle, so a clock skew cannot
 * make it loop. Taken out of the environment at once: the agent's commands must not inherit it, or
 * a bundle they start would skip its own check.
 */
const REBUILT = "CLI_BUNDLE_REBUILT";
const rebuilt = process.env[REBUILT] === bundle;
delete process.env[REBUILT];

if (!rebuilt) {
  const reason = staleReason(bundle);
  if (reason !== undefined) process.exit(rebuildAndRun(reason));
}

function rebuildAndRun(reason: string): number {
  const manifest = readManifest(bundle);
  if (manifest === undefined) {
    process.stderr.write(
      `${name}: ${bundle} has no manifest (${bundle}.json), so it cannot check or rebuild itself. Run \`pnpm install\` in the repository to rebuild it.\n`,
    );
    return 2;
  }
  const build = spawnSync(process.execPath, manifest.rebuild, {
    stdio: ["ignore", "inherit", "inherit"],
  });
  if (build.status !== 0) {
    process.stderr.write(
      `${name}: could not rebuild ${bundle} (${reason}); see above. Run \`pnpm install\` in the repository to rebuild it.\n`,
    );
    return 2;
  }
  // Ctrl-C in a terminal reaches the child too, which handles it (the agent stops its run cleanly):
  // this process must outlive it, not die first and hand the terminal back mid-summary.
  const ignore = (): void => {};
  process.on("SIGINT", ignore);
  const run = spawnSync(process.execPath, [bundle, ...process.argv.slice(2)], {
    stdio: "inherit",
    env: { ...process.env, [REBUILT]: bundle },
  });
  process.off("SIGINT", ignore);
  if (run.signal !== null) process.kill(process.pid, run.signal);
  return run.status ?? 1;
}
