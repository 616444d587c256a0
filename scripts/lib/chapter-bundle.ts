// A chapter's program (its src/main.ts or src/apply-patch-cli.ts) as one JavaScript file, for the
// tests and captures that only need its behaviour. Started from its TypeScript source with
// `node --import tsx`, a chapter costs a loader and compiling every module on every start (2.5 to 3
// CPU-seconds on a busy machine); the suite starts chapters about 180 times. A bundle starts in a
// fraction of that.
//
// Built by the same function as the bundles in dist/ (bundleModules in scripts/build-cli.ts), so
// every module finds its files (prompts, .env, the offline model's scripts) where it does under tsx.
// Two differences from dist/: the entry keeps its source's import.meta.url too, and the bundle sets
// process.argv[1] to the entry's path before any module runs, so the program sees the argv[1] that
// `node --import tsx src/main.ts` gives it and its "am I the program?" check holds.
//
// Bundles are cached in node_modules/.cache/chapter-bundles/, one per entry, and rebuilt when a file
// they were built from changed after their build started (the rule dist/ uses, changedInput), so a
// test never runs old code. `pnpm chapter N` does not use them: a reader runs the source with tsx.
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { bundleModules, writeAtomically } from "../build-cli.ts";
import { ROOT } from "./chapters.ts";
import { changedInput } from "./cli-bundle.ts";

export const CHAPTER_BUNDLES_DIR = join(ROOT, "node_modules", ".cache", "chapter-bundles");

/** Written next to the bundle as `<bundle>.json`: what it was built from. */
interface ChapterBundleManifest {
  /** The program's entry, absolute. */
  entry: string;
  /** Every file esbuild read, absolute. */
  inputs: string[];
}

/** Builds under way in this process: concurrent tests of one worker wait for the same build. */
const building = new Map<string, Promise<string>>();

/**
 * The path of a bundle of `entry` (an absolute .ts path) built from the files as they are now:
 * the cached one when it is fresh, else a new build. Run it with `node BUNDLE ARGS...`.
 */
export function chapterBundle(entry: string, cacheDir = CHAPTER_BUNDLES_DIR): Promise<string> {
  const bundle = bundlePath(entry, cacheDir);
  let pending = building.get(bundle);
  if (pending === undefined) {
    pending = freshBundle(entry, bundle).finally(() => building.delete(bundle));
    building.set(bundle, pending);
  }
  return pending;
}

/** Why the bundle of `entry` in `bundle` must be (re)built, or undefined when it is fresh. */
export function chapterBundleStaleReason(entry: string, bundle: string): string | undefined {
  let manifest: ChapterBundleManifest;
  let builtAt: number;
  try {
    manifest = JSON.parse(readFileSync(`${bundle}.json`, "utf8")) as ChapterBundleManifest;
    builtAt = statSync(bundle).mtimeMs;
  } catch {
    return "not built yet"; // or cut short by a killed build: either way, build
  }
  if (manifest.entry !== entry) return `built from ${manifest.entry}`;
  return changedInput(manifest.inputs, builtAt);
}

/** One file per entry, named after its chapter and program so that a person can tell them apart. */
export function bundlePath(entry: string, cacheDir = CHAPTER_BUNDLES_DIR): string {
  const hash = createHash("sha256").update(entry).digest("hex").slice(0, 10);
  const chapter = basename(dirname(dirname(entry)));
  return join(cacheDir, `${chapter}-${basename(entry, ".ts")}-${hash}.mjs`);
}

async function freshBundle(entry: string, bundle: string): Promise<string> {
  if (chapterBundleStaleReason(entry, bundle) === undefined) return bundle;
  // Vitest's workers are separate processes: a lock folder makes one build while the others wait
  // and then find it fresh. A lock left by a killed build is taken over after a while.
  mkdirSync(dirname(bundle), { recursive: true });
  const lock = `${bundle}.lock`;
  for (let waited = 0; !tryLock(lock); waited += 50) {
    if (waited > 60_000) {
      rmSync(lock, { recursive: true, force: true });
      waited = 0;
    }
    await sleep(50);
  }
  try {
    if (chapterBundleStaleReason(entry, bundle) !== undefined) await build(entry, bundle);
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
  return bundle;
}

function tryLock(lock: string): boolean {
  try {
    mkdirSync(lock);
    return true;
  } catch {
    return false;
  }
}

async function build(entry: string, bundle: string): Promise<void> {
  // The bundle counts as old as its sources were when esbuild read them: a file saved during the
  // build is then newer than the bundle, and the next run rebuilds.
  const startedAt = new Date();
  const { code, inputs } = await bundleModules([entry], {
    outFile: bundle,
    banner: [
      `// Built by scripts/lib/chapter-bundle.ts from ${entry}; do not edit.`,
      `process.argv[1] = ${JSON.stringify(entry)};`,
    ],
  });
  const manifest: ChapterBundleManifest = { entry, inputs };
  // The manifest first: a run between the two renames sees the old bundle as stale (it is older
  // than the inputs that changed), which only costs one more build.
  writeAtomically(`${bundle}.json`, JSON.stringify(manifest, null, 2) + "\n");
  writeAtomically(bundle, code, { mtime: startedAt });
}
