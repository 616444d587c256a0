// The first module dist/apply-patch.mjs runs, before the CLI's own (ES modules run their imports in
// order, and the bundle's entry imports this one first). Two jobs:
// 1. The CLI runs main() only when it is the program: it compares process.argv[1] with its own file.
//    Started through a bin symlink or the pnpm launcher, argv[1] names another path, yet the bundle
//    is always the program; so argv[1] becomes the bundle.
// 2. A stale bundle must never run old code: when a source file is newer than the bundle (or a
//    newer chapter has the CLI), rebuild it and run the new one in a child process instead.
import { spawnSync } from "node:child_process";
import { readManifest, staleReason } from "./cli-bundle.ts";

const bundle = import.meta.filename;
process.argv[1] = bundle;

/** Set for the child that runs a just-rebuilt bundle, so a clock skew cannot make it loop. */
const REBUILT = "APPLY_PATCH_BUNDLE_REBUILT";

if (process.env[REBUILT] === undefined) {
  const reason = staleReason(bundle);
  if (reason !== undefined) process.exit(rebuildAndRun(reason));
}

function rebuildAndRun(reason: string): number {
  const manifest = readManifest(bundle);
  if (manifest === undefined) {
    process.stderr.write(
      `apply-patch: ${bundle} has no manifest (${bundle}.json), so it cannot check or rebuild itself. Run \`pnpm install\` in the repository to rebuild it.\n`,
    );
    return 2;
  }
  const build = spawnSync(process.execPath, manifest.rebuild, {
    stdio: ["ignore", "inherit", "inherit"],
  });
  if (build.status !== 0) {
    process.stderr.write(
      `apply-patch: could not rebuild ${bundle} (${reason}); see above. Run \`pnpm install\` in the repository to rebuild it.\n`,
    );
    return 2;
  }
  const run = spawnSync(process.execPath, [bundle, ...process.argv.slice(2)], {
    stdio: "inherit",
    env: { ...process.env, [REBUILT]: "1" },
  });
  return run.status ?? 1;
}
