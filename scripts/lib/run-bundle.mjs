// The launchers' shared part (scripts/start.mjs, scripts/apply-patch.mjs): run a bundle in dist/ as
// the program. Plain JavaScript because Node 20 runs no TypeScript without a loader, and the loader
// is the cost the bundles avoid. `pnpm install` builds the bundles (the root "prepare" script); when
// one is missing, the first call builds it, and a bundle rebuilds itself when a source file is newer
// than it (scripts/lib/cli-bundle-start.ts).
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { pathToFileURL } from "node:url";

const root = join(import.meta.dirname, "..", "..");

/**
 * Runs dist/NAME.mjs with this process's arguments. `command` names the launcher in its errors;
 * `entry` is the chapter file the bundle is built from, for the error when no chapter has it yet.
 */
export async function runBundle(name, command, entry) {
  const bundle = join(root, "dist", `${name}.mjs`);
  if (!existsSync(bundle)) {
    const build = spawnSync(
      process.execPath,
      ["--import", "tsx", join(root, "scripts", "build-cli.ts"), "--bundle", name, "--quiet"],
      { cwd: root, stdio: ["ignore", "ignore", "inherit"] },
    );
    if (build.status !== 0) {
      process.stderr.write(`${command}: could not build ${bundle}; see above.\n`);
      process.exit(2);
    }
    if (!existsSync(bundle)) {
      process.stderr.write(`${command}: no chapter has a ${entry} yet.\n`);
      process.exit(1);
    }
  }
  // pnpm forwards a literal "--" separator in some versions; no bundle wants it.
  const args = process.argv.slice(2);
  process.argv = [process.argv[0], bundle, ...(args[0] === "--" ? args.slice(1) : args)];
  await import(pathToFileURL(bundle).href);
}
