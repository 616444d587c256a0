// Which chapter test files `pnpm test` runs. Chapter N+1 starts as a copy of chapter N, so most of
// its test files are byte-identical to the previous chapter's, and so is everything they load.
// Running such a copy again cannot find anything new. A chapter's test file runs only when it, or
// anything it depends on, differs from the previous chapter's copy (`pnpm test:all` runs them all).
//
// "Depends on" is read from the source, and errs towards running a test:
// - every relative import, static or dynamic, followed transitively;
// - every string literal that names a file or folder of the chapter, relative to the file that
//   says it: `new URL("../src/main.ts", import.meta.url)`, a prompt's "role.md", a fixture folder,
//   a file snapshot (a folder brings everything under it);
// - the test file's snapshots in __snapshots__/;
// - the chapter's package.json: its settings, and the version it asks for of each package the test
//   and its code import (every chapter has a name and a package list of its own; those alone
//   change nothing a test sees). The packages themselves, shared/ included, are one copy for all.
// scripts/audit-test-selection.ts checks this against the files each test really opens.
import { createHash } from "node:crypto";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { SKIPPED_DIRS } from "../../scripts/lib/chapters.ts";

export interface ChapterTest {
  /** e.g. "chapters/16-notes/test/ledger.test.ts", relative to the repository root */
  file: string;
  chapter: string;
  /** the test file relative to its chapter, e.g. "test/ledger.test.ts": what "its copy" means */
  path: string;
  /** chapter-relative paths of the test file and everything it depends on, sorted */
  dependencies: string[];
  /** one hash over those paths and their bytes */
  fingerprint: string;
}

export interface TestSelection {
  run: ChapterTest[];
  /** each skipped test with the earlier chapter whose identical copy runs instead */
  skipped: { test: ChapterTest; sameAs: string }[];
}

const SOURCE = /\.(ts|mts|js|mjs)$/;
// import x from "…", export … from "…", import "…", import("…"), vi.mock("…")
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*|\bmock\s*\(\s*)(["'])([^"'\n]+)\1/g;
// A quoted string on one line; a template literal only when it has no ${…} in it.
const LITERAL = /"((?:[^"\\\n]|\\.)*)"|'((?:[^'\\\n]|\\.)*)'|`([^`$\\]*)`/g;

// Vitest options whose value may be a path or a name, given as a separate argument.
const VALUE_OPTIONS = new Set([
  "--exclude",
  "--root",
  "-r",
  "--dir",
  "--config",
  "-c",
  "--project",
  "--outputFile",
  "--mode",
  "--testNamePattern",
  "-t",
  "--reporter",
  "--environment",
  "--pool",
]);

/**
 * Whether the command line names a file or folder to test (`pnpm test chapters/16-notes`):
 * then the reader asked for those tests, and every copy of them runs.
 */
export function namesTestPaths(args: string[], exists: (path: string) => boolean): boolean {
  return args.some(
    (arg, i) => !arg.startsWith("-") && !VALUE_OPTIONS.has(args[i - 1] ?? "") && exists(arg),
  );
}

export function selectChapterTests(root: string): TestSelection {
  const chaptersDir = join(root, "chapters");
  const chapters = readdirSync(chaptersDir)
    .filter((name) => /^\d\d-/.test(name) && statSync(join(chaptersDir, name)).isDirectory())
    .sort();
  const selection: TestSelection = { run: [], skipped: [] };
  let previous = new Map<string, ChapterTest>();
  for (const chapter of chapters) {
    const tests = chapterTests(root, chapter);
    for (const test of tests.values()) {
      const copy = previous.get(test.path);
      if (copy !== undefined && copy.fingerprint === test.fingerprint) {
        // The copy itself may be skipped too: name the chapter whose copy really runs.
        const runs = selection.skipped.find((s) => s.test === copy)?.sameAs ?? copy.chapter;
        selection.skipped.push({ test, sameAs: runs });
      } else {
        selection.run.push(test);
      }
    }
    previous = tests;
  }
  return selection;
}

function chapterTests(root: string, chapter: string): Map<string, ChapterTest> {
  const chapterDir = join(root, "chapters", chapter);
  const tests = new Map<string, ChapterTest>();
  for (const path of filesUnder(chapterDir, "test").filter((p) => p.endsWith(".test.ts"))) {
    const { files, packages } = dependenciesOf(chapterDir, path);
    tests.set(path, {
      file: `chapters/${chapter}/${path}`,
      chapter,
      path,
      dependencies: files,
      fingerprint: fingerprintOf(chapterDir, files, packages),
    });
  }
  return tests;
}

interface Dependencies {
  /** chapter-relative paths, sorted: the test file, what it reaches, its snapshots, package.json */
  files: string[];
  /** the packages imported along the way, e.g. "openai", "@build-agent/shared" */
  packages: string[];
}

/** The test file, everything it reaches through imports and path literals, its snapshots and package.json. */
export function dependenciesOf(chapterDir: string, testPath: string): Dependencies {
  const found = new Set<string>(["package.json", testPath]);
  const packages = new Set<string>();
  const snapshots = `${dirname(testPath)}/__snapshots__/${basename(testPath)}.snap`;
  if (existsSync(join(chapterDir, snapshots))) found.add(snapshots);
  const queue = [testPath];
  while (queue.length > 0) {
    const path = queue.pop()!;
    if (!SOURCE.test(path)) continue; // data files are leaves
    const references = referencesOf(chapterDir, path);
    for (const name of references.packages) packages.add(name);
    for (const next of references.files) {
      if (found.has(next)) continue;
      found.add(next);
      queue.push(next);
    }
  }
  return { files: [...found].sort(), packages: [...packages].sort() };
}

/** What one source file names: chapter files, by import or by a path literal, and packages. */
function referencesOf(chapterDir: string, path: string): { files: string[]; packages: string[] } {
  const text = readFileSync(join(chapterDir, path), "utf8");
  const here = dirname(join(chapterDir, path));
  const names = new Set<string>();
  const packages: string[] = [];
  for (const match of text.matchAll(SPECIFIER)) {
    const specifier = match[2]!;
    if (specifier.startsWith(".")) names.add(specifier);
    else if (!specifier.startsWith("node:")) packages.push(packageName(specifier));
  }
  for (const match of text.matchAll(LITERAL)) names.add(match[1] ?? match[2] ?? match[3]!);
  const files = [...names]
    .filter(isPathLike)
    .flatMap((name) => chapterFilesAt(chapterDir, resolve(here, name)));
  return { files, packages };
}

/** "openai/resources/x" is the package "openai"; "@build-agent/shared/y" is "@build-agent/shared". */
function packageName(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}

/** "../src/main.ts", "role.md", "fixtures/": yes. ".", "..", "", a sentence, a URL: no. */
function isPathLike(name: string): boolean {
  if (name.length === 0 || name.length > 200 || /\s|:/.test(name)) return false;
  return !/^(\.\.?\/?)+$/.test(name);
}

/** The chapter files at an absolute path: the file, or every file under a folder; none outside. */
function chapterFilesAt(chapterDir: string, absolute: string): string[] {
  const rel = relative(chapterDir, absolute);
  if (rel === "" || rel.startsWith("..") || rel.split(sep).some((p) => SKIPPED_DIRS.has(p))) {
    return [];
  }
  for (const candidate of [rel, rel.replace(/\.js$/, ".ts"), `${rel}.ts`]) {
    const full = join(chapterDir, candidate);
    if (!existsSync(full)) continue;
    if (statSync(full).isDirectory()) return filesUnder(chapterDir, candidate);
    return [candidate.split(sep).join("/")];
  }
  return [];
}

/** Every file under a chapter folder, as chapter-relative posix paths. */
function filesUnder(chapterDir: string, folder: string): string[] {
  const full = join(chapterDir, folder);
  if (!existsSync(full)) return [];
  return readdirSync(full, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(chapterDir, join(entry.parentPath, entry.name)).split(sep).join("/"))
    .filter((path) => !path.split("/").some((part) => SKIPPED_DIRS.has(part)))
    .sort();
}

function fingerprintOf(chapterDir: string, files: string[], packages: string[]): string {
  const hash = createHash("sha256");
  for (const path of files) {
    const bytes =
      path === "package.json"
        ? packageSettings(chapterDir, packages)
        : readFileSync(join(chapterDir, path));
    hash.update(path).update("\0").update(bytes).update("\0");
  }
  return hash.digest("hex");
}

/** What of package.json a test can see: the settings, and the versions of the packages it uses. */
function packageSettings(chapterDir: string, packages: string[]): string {
  const manifest = JSON.parse(readFileSync(join(chapterDir, "package.json"), "utf8")) as Record<
    string,
    unknown
  >;
  const { name: _name, description: _description, ...settings } = manifest;
  for (const field of ["dependencies", "devDependencies"]) {
    const all = (manifest[field] ?? {}) as Record<string, string>;
    settings[field] = Object.fromEntries(packages.map((name) => [name, all[name] ?? null]));
  }
  return JSON.stringify(settings);
}
