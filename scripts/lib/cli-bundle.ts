// What dist/apply-patch.mjs was built from, and whether that is still the code to run.
// Shared by the build (scripts/build-cli.ts) and by the bundle itself, which checks on every start
// (scripts/lib/cli-bundle-start.ts): a stale bundle must never run old code. Plain node:fs only,
// because this file is bundled too.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

/** Written next to the bundle as `<bundle>.json`. */
export interface BundleManifest {
  /** The chapters folder whose newest apply-patch-cli.ts the bundle was built from. */
  chaptersDir: string;
  /** That CLI's absolute path. */
  entry: string;
  /** Every source file esbuild read (chapter src and packages), absolute. */
  inputs: string[];
  /** The command that rebuilds this bundle: node plus its arguments. */
  rebuild: string[];
}

export const manifestPath = (bundle: string): string => `${bundle}.json`;

export function readManifest(bundle: string): BundleManifest | undefined {
  try {
    return JSON.parse(readFileSync(manifestPath(bundle), "utf8")) as BundleManifest;
  } catch {
    return undefined; // missing, or cut short by a build that was killed: either way, rebuild
  }
}

/** The newest chapter's src/apply-patch-cli.ts, like scripts/lib/chapters.ts finds it. */
export function newestCli(chaptersDir: string): string | undefined {
  return readdirSync(chaptersDir)
    .filter((slug) => /^\d\d-/.test(slug))
    .sort()
    .map((slug) => join(chaptersDir, slug, "src", "apply-patch-cli.ts"))
    .filter((file) => existsSync(file))
    .at(-1);
}

/**
 * Why the bundle must be rebuilt, or undefined when it is fresh: it is missing, a newer chapter
 * has the CLI, or a source file changed (or vanished) after the bundle was written. Costs one stat
 * per input (about 40), well under a millisecond.
 */
export function staleReason(bundle: string): string | undefined {
  const manifest = readManifest(bundle);
  if (!existsSync(bundle) || manifest === undefined) return "not built yet";
  const entry = newestCli(manifest.chaptersDir);
  if (entry !== manifest.entry) return `the newest CLI is now ${entry}`;
  const builtAt = statSync(bundle).mtimeMs;
  for (const input of manifest.inputs) {
    const changedAt = statSync(input, { throwIfNoEntry: false })?.mtimeMs;
    if (changedAt === undefined) return `${input} is gone`;
    if (changedAt > builtAt) return `${input} changed`;
  }
  return undefined;
}
