// tsx scripts/build-cli.ts [--bundle NAME]... [--out FILE] [--chapters DIR] [--quiet]
//
// Builds the bundles in dist/: the newest chapter's entry point and everything it imports, in one
// JavaScript file each.
//   dist/apply-patch.mjs  src/apply-patch-cli.ts, the patch tool (`pnpm apply-patch`, the bin)
//   dist/agent.mjs        src/main.ts, the agent (`pnpm start`, through scripts/start.mjs)
// Chapters run from their TypeScript source with tsx, which costs a loader and compiling every
// module on every start (over a second for the agent); the tools people run every day should
// start about as fast as Node itself. `pnpm install` builds both (the root "prepare" script), and
// a bundle rebuilds itself when a source changes (scripts/lib/cli-bundle-start.ts). `pnpm chapter
// N` still runs a chapter's source through tsx, so a reader's edit shows at once.
import { randomBytes } from "node:crypto";
import { readFileSync, renameSync, utimesSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { build, type Plugin } from "esbuild";
import { CHAPTERS_DIR, ROOT } from "./lib/chapters.ts";
import { manifestPath, newestEntry, type BundleManifest } from "./lib/cli-bundle.ts";

/** Each bundle and the file, in the newest chapter that has it, it is built from. */
export const BUNDLES = {
  "apply-patch": "src/apply-patch-cli.ts",
  agent: "src/main.ts",
} as const;
export type BundleName = keyof typeof BUNDLES;

export const bundleFile = (name: BundleName): string => join(ROOT, "dist", `${name}.mjs`);
export const DEFAULT_BUNDLE = bundleFile("apply-patch");
const START_MODULE = fileURLToPath(new URL("./lib/cli-bundle-start.ts", import.meta.url));

export interface BuildOptions {
  /** Which bundle; "apply-patch" unless said. */
  bundle?: BundleName;
  /** Where to write it; dist/<bundle>.mjs unless said. */
  outFile?: string;
  chaptersDir?: string;
}

/** Builds the bundle and its manifest; undefined while no chapter has its entry yet. */
export async function buildCliBundle(
  options: BuildOptions = {},
): Promise<BundleManifest | undefined> {
  const name = options.bundle ?? "apply-patch";
  const entryPath = BUNDLES[name];
  const outFile = resolve(options.outFile ?? bundleFile(name));
  const chaptersDir = resolve(options.chaptersDir ?? CHAPTERS_DIR);
  const entry = newestEntry(chaptersDir, entryPath);
  if (entry === undefined) return undefined;
  // The bundle counts as old as its sources were when esbuild read them: a file saved during the
  // build is then newer than the bundle, and the next start rebuilds.
  const startedAt = new Date();
  const { code, inputs } = await bundleModules([START_MODULE, entry], {
    outFile,
    keepImportMeta: [entry, START_MODULE],
    banner: [
      "#!/usr/bin/env node",
      `// Built by scripts/build-cli.ts from ${relative(ROOT, entry)}; do not edit.`,
    ],
  });
  const manifest: BundleManifest = {
    chaptersDir,
    entryPath,
    entry,
    inputs,
    rebuild: [
      "--import",
      import.meta.resolve("tsx"),
      fileURLToPath(import.meta.url),
      "--quiet",
      "--bundle",
      name,
      "--out",
      outFile,
      "--chapters",
      chaptersDir,
    ],
  };
  // Write beside, then rename: a concurrent start sees the old bundle or the new, never half of one.
  // The manifest goes first; a start between the two renames sees the old bundle as stale, which
  // only costs one more build.
  mkdirSync(dirname(outFile), { recursive: true });
  writeAtomically(manifestPath(outFile), JSON.stringify(manifest, null, 2) + "\n");
  writeAtomically(outFile, code, { mode: 0o755, mtime: startedAt });
  return manifest;
}

export interface BundleModulesOptions {
  /** The bundle's path: esbuild names it in its errors and places the output's paths by it. */
  outFile: string;
  /** Modules (absolute) that keep the bundle's own import.meta instead of their source file's. */
  keepImportMeta?: string[];
  /** Lines before the code, after a shebang if the first is one. */
  banner?: string[];
}

/**
 * The one way this repository bundles a program, for dist/ (below) and for the chapters' test runs
 * (scripts/lib/chapter-bundle.ts): `modules` (absolute paths) run in order, with everything they
 * import, in one ES module for Node 20. Returns the code, not yet written, and every source file
 * esbuild read (absolute), which is what decides when the bundle is stale.
 */
export async function bundleModules(
  modules: string[],
  options: BundleModulesOptions,
): Promise<{ code: Uint8Array; inputs: string[] }> {
  const result = await build({
    stdin: {
      contents: modules.map((module) => `import ${JSON.stringify(module)};\n`).join(""),
      resolveDir: ROOT,
    },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outfile: options.outFile,
    write: false,
    metafile: true,
    logLevel: "error",
    absWorkingDir: ROOT,
    plugins: [sourceImportMeta(new Set(options.keepImportMeta))],
    banner: {
      js: [
        ...(options.banner ?? []),
        // CommonJS packages in the bundle (yaml) require Node's own modules, which an ES module
        // can only do through a require of its own.
        'import { createRequire as __createRequire } from "node:module";',
        "const require = __createRequire(import.meta.url);",
      ].join("\n"),
    },
  });
  const [output] = result.outputFiles;
  if (output === undefined) throw new Error("esbuild wrote no output");
  const inputs = Object.keys(result.metafile.inputs)
    .filter((input) => input !== "<stdin>")
    .map((input) => (isAbsolute(input) ? input : join(ROOT, input)));
  return { code: output.contents, inputs };
}

/**
 * Chapters find files beside their modules through import.meta.url: the prompts (src/prompts/*.md),
 * the repository's .env, the offline model's scripts and demo repository, and the tokenizer they
 * load with createRequire. In a bundle import.meta.url is the bundle's, in dist/, and all of those
 * would be missed. So every bundled module of ours gets its own source file's URL, path and folder
 * instead, and finds what it finds under tsx: the files are read where they are, so an edit to a
 * prompt shows without a rebuild. The modules in `keep` keep the bundle's. In dist/ those are
 * two: the start module, which checks the bundle itself, and the entry, whose "am I the program?"
 * check compares import.meta.url with process.argv[1], which the start module sets to the bundle.
 * A chapter's test bundle keeps none: it sets argv[1] to the entry's source instead.
 */
function sourceImportMeta(keep: Set<string>): Plugin {
  return {
    name: "source-import-meta",
    setup(esbuild) {
      esbuild.onLoad({ filter: /\.ts$/ }, ({ path }) => {
        if (keep.has(path) || path.includes(`${sep}node_modules${sep}`)) return undefined;
        const source = readFileSync(path, "utf8");
        if (!source.includes("import.meta.")) return undefined;
        const meta = { url: pathToFileURL(path).href, filename: path, dirname: dirname(path) };
        const contents = source.replaceAll(/\bimport\.meta\.(url|filename|dirname)\b/g, (_, key) =>
          JSON.stringify(meta[key as keyof typeof meta]),
        );
        return { contents, loader: "ts" };
      });
    },
  };
}

export function writeAtomically(
  file: string,
  data: string | Uint8Array,
  options: { mode?: number; mtime?: Date } = {},
): void {
  // Named by process and a random tag: two builds of one file, in two processes or one, never share it.
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  writeFileSync(temporary, data, { mode: options.mode ?? 0o644 });
  if (options.mtime !== undefined) utimesSync(temporary, options.mtime, options.mtime);
  renameSync(temporary, file);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      bundle: { type: "string", multiple: true },
      out: { type: "string" },
      chapters: { type: "string" },
      quiet: { type: "boolean" },
    },
  });
  const names = (values.bundle ?? Object.keys(BUNDLES)) as BundleName[];
  const unknown = names.filter((name) => !(name in BUNDLES));
  if (unknown.length > 0 || (values.out !== undefined && names.length !== 1)) {
    console.error(
      `build-cli: ${unknown.length > 0 ? `no bundle named ${unknown.join(", ")}` : "--out needs exactly one --bundle"}. ` +
        `Bundles: ${Object.keys(BUNDLES).join(", ")}.`,
    );
    process.exit(2);
  }
  for (const name of names) {
    const started = performance.now();
    const manifest = await buildCliBundle({
      bundle: name,
      outFile: values.out,
      chaptersDir: values.chapters,
    });
    if (manifest === undefined) {
      console.log(`build-cli: no chapter has ${BUNDLES[name]} yet; ${name} not built.`);
    } else if (values.quiet !== true) {
      const out = relative(process.cwd(), values.out ?? bundleFile(name));
      console.log(
        `build-cli: ${out} from ${relative(ROOT, manifest.entry)} in ${Math.round(performance.now() - started)} ms`,
      );
    }
  }
}
