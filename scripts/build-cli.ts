// tsx scripts/build-cli.ts [--out FILE] [--chapters DIR] [--quiet]
//
// Builds dist/apply-patch.mjs: the newest chapter's apply-patch CLI and everything it imports, in one
// JavaScript file. Chapters run from their TypeScript source with tsx, which costs a loader and some
// forty module loads on every start (about 0.4 s); the tool people call from scripts should start
// about as fast as Node itself. `pnpm install` runs this (the root "prepare" script), and the bundle
// rebuilds itself when a source changes (scripts/lib/cli-bundle-start.ts).
import { renameSync, utimesSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { build } from "esbuild";
import { CHAPTERS_DIR, ROOT } from "./lib/chapters.ts";
import { manifestPath, newestCli, type BundleManifest } from "./lib/cli-bundle.ts";

export const DEFAULT_BUNDLE = join(ROOT, "dist", "apply-patch.mjs");
const START_MODULE = fileURLToPath(new URL("./lib/cli-bundle-start.ts", import.meta.url));

export interface BuildOptions {
  outFile?: string;
  chaptersDir?: string;
}

/** Builds the bundle and its manifest; undefined while no chapter has the CLI yet. */
export async function buildCliBundle(
  options: BuildOptions = {},
): Promise<BundleManifest | undefined> {
  const outFile = resolve(options.outFile ?? DEFAULT_BUNDLE);
  const chaptersDir = resolve(options.chaptersDir ?? CHAPTERS_DIR);
  const entry = newestCli(chaptersDir);
  if (entry === undefined) return undefined;
  // The bundle counts as old as its sources were when esbuild read them: a file saved during the
  // build is then newer than the bundle, and the next start rebuilds.
  const startedAt = new Date();
  const result = await build({
    stdin: {
      contents: `import ${JSON.stringify(START_MODULE)};\nimport ${JSON.stringify(entry)};\n`,
      resolveDir: ROOT,
    },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outfile: outFile,
    write: false,
    metafile: true,
    logLevel: "error",
    absWorkingDir: ROOT,
    banner: {
      js: `#!/usr/bin/env node\n// Built by scripts/build-cli.ts from ${relative(ROOT, entry)}; do not edit.`,
    },
  });
  const manifest: BundleManifest = {
    chaptersDir,
    entry,
    inputs: Object.keys(result.metafile.inputs)
      .filter((input) => input !== "<stdin>")
      .map((input) => (isAbsolute(input) ? input : join(ROOT, input))),
    rebuild: [
      "--import",
      import.meta.resolve("tsx"),
      fileURLToPath(import.meta.url),
      "--quiet",
      "--out",
      outFile,
      "--chapters",
      chaptersDir,
    ],
  };
  const [output] = result.outputFiles;
  if (output === undefined) throw new Error("esbuild wrote no output");
  // Write beside, then rename: a concurrent start sees the old bundle or the new, never half of one.
  // The manifest goes first; a start between the two renames sees the old bundle as stale, which
  // only costs one more build.
  mkdirSync(dirname(outFile), { recursive: true });
  writeAtomically(manifestPath(outFile), JSON.stringify(manifest, null, 2) + "\n");
  writeAtomically(outFile, output.contents, { mode: 0o755, mtime: startedAt });
  return manifest;
}

function writeAtomically(
  file: string,
  data: string | Uint8Array,
  options: { mode?: number; mtime?: Date } = {},
): void {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, data, { mode: options.mode ?? 0o644 });
  if (options.mtime !== undefined) utimesSync(temporary, options.mtime, options.mtime);
  renameSync(temporary, file);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      out: { type: "string" },
      chapters: { type: "string" },
      quiet: { type: "boolean" },
    },
  });
  const started = performance.now();
  const manifest = await buildCliBundle({ outFile: values.out, chaptersDir: values.chapters });
  if (manifest === undefined) {
    console.log("build-cli: no chapter has src/apply-patch-cli.ts yet; nothing to build.");
  } else if (values.quiet !== true) {
    const out = relative(process.cwd(), values.out ?? DEFAULT_BUNDLE);
    console.log(
      `build-cli: ${out} from ${relative(ROOT, manifest.entry)} in ${Math.round(performance.now() - started)} ms`,
    );
  }
}
