// What a bundle in dist/ (apply-patch.mjs, agent.mjs) was built from, and whether that is still the
// code to run. Shared by the build (scripts/build-cli.ts) and by the bundle itself, which checks on
// every start (scripts/lib/cli-bundle-start.ts): a stale bundle must never run old code. Plain
// node:fs only, because this file is bundled too.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

/** Written next to the bundle as `<bundle>.json`. */
export interface BundleManifest {
  /** The chapters folder whose newest chapter with `entryPath` the bundle was built from. */
  chaptersDir: string;
  /** The entry's path inside a chapter, e.g. "src/apply-patch-cli.ts" or "src/main.ts". */
  entryPath: string;
  /** That chapter's entry, absolute. */
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

/** The newest chapter's copy of `entryPath`, like scripts/lib/chapters.ts finds it. */
export function newestEntry(chaptersDir: string, entryPath: string): string | undefined {
  return readdirSync(chaptersDir)
    .filter((slug) => /^\d\d-/.test(slug))
    .sort()
    .map((slug) => join(chaptersDir, slug, entryPath))
    .filter((file) => existsSync(file))
    .at(-1);
}

/**
 * Why the bundle must be rebuilt, or undefined when it is fresh: it is missing, a newer chapter
 * has the entry, or a source file changed (or vanished) after the bundle was written. Costs one
 * stat per input (about 40 for the CLI, 400 for the agent), a millisecond or two.
 */
export function staleReason(bundle: string): string | undefined {
  const manifest = readManifest(bundle);
  if (!existsSync(bundle) || manifest === undefined) return "not built yet";
  // A manifest from before the agent had a bundle names no entryPath.
  if (manifest.entryPath === undefined) return "built by an older scripts/build-cli.ts";
  const entry = newestEntry(manifest.chaptersDir, manifest.entryPath);
  if (entry !== manifest.entry) return `the newest ${manifest.entryPath} is now ${entry}`;
  return changedInput(manifest.inputs, statSync(bundle).mtimeMs);
}

/**
 * The first of a bundle's inputs that changed (or vanished) since `builtAt`, the time its build
 * started, as a reason to rebuild; undefined when none did. Also decides for the chapters' test
 * bundles (scripts/lib/chapter-bundle.ts).
 */
export function changedInput(inputs: string[], builtAt: number): string | undefined {
  for (const input of inputs) {
    const changedAt = statSync(input, { throwIfNoEntry: false })?.mtimeMs;
    if (changedAt === undefined) return `${input} is gone`;
    if (changedAt > builtAt) return `${input} changed`;
  }
  return undefined;
}
