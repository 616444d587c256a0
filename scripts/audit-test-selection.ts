// Checks test/support/test-selection.ts against what the tests really do. Each chapter test file
// runs alone under strace, which records every file any process opens (vitest, its workers, and
// the programs the test starts). Every file of the test's own chapter that was opened must be in
// the dependencies the selection computed for it; any other is a file whose change the selection
// would miss, and is printed. Linux only (strace: apt-get install strace); takes a few minutes.
//
//   pnpm exec tsx scripts/audit-test-selection.ts                 every chapter test file
//   pnpm exec tsx scripts/audit-test-selection.ts 16 17           the test files of chapters 16 and 17
//   pnpm exec tsx scripts/audit-test-selection.ts prompt.test.ts  that file, in every chapter
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { dependenciesOf } from "../test/support/test-selection.ts";
import { ROOT, listChapters } from "./lib/chapters.ts";

interface Finding {
  file: string;
  missed: string[];
  failed: boolean;
}

const args = process.argv.slice(2);
const chapters = args.filter((arg) => /^\d+$/.test(arg)).map((arg) => arg.padStart(2, "0"));
const names = args.filter((arg) => arg.endsWith(".test.ts"));
const tests = listChapters()
  .filter((chapter) => chapters.length === 0 || chapters.includes(chapter.slug.slice(0, 2)))
  .flatMap((chapter) =>
    readdirSync(join(chapter.dir, "test"))
      .filter((name) => name.endsWith(".test.ts"))
      .filter((name) => names.length === 0 || names.includes(name))
      .map((name) => ({ chapterDir: chapter.dir, path: `test/${name}` })),
  );

/** Runs one test file under strace; returns the chapter-relative files it opened, and whether it passed. */
async function openedFiles(
  chapterDir: string,
  path: string,
): Promise<{ opened: Set<string>; ok: boolean }> {
  const scratch = mkdtempSync(join(tmpdir(), "audit-"));
  const trace = join(scratch, "trace");
  const file = relative(ROOT, join(chapterDir, path));
  const args = ["-f", "-qq", "-e", "trace=open,openat", "-o", trace];
  const child = spawn("strace", [...args, "pnpm", "exec", "vitest", "run", "--mode", "all", file], {
    cwd: ROOT,
    stdio: "ignore",
  });
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  const opened = new Set<string>();
  for (const match of readFileSync(trace, "utf8").matchAll(
    /open(?:at)?\(.*?"([^"]+)"[^)]*\) = \d/g,
  )) {
    const absolute = match[1]!.startsWith("/") ? match[1]! : join(ROOT, match[1]!);
    const rel = relative(chapterDir, absolute).split(sep).join("/");
    if (rel.startsWith("..") || rel.includes("node_modules/") || rel === "") continue;
    // vitest's config lists every test file (to find the ones that mock); reading is not depending.
    if (rel.endsWith(".test.ts") && rel !== path) continue;
    opened.add(rel);
  }
  rmSync(scratch, { recursive: true, force: true });
  return { opened, ok: code === 0 };
}

const findings: Finding[] = [];
let next = 0;
async function worker(): Promise<void> {
  while (next < tests.length) {
    const { chapterDir, path } = tests[next++]!;
    const { opened, ok } = await openedFiles(chapterDir, path);
    const known = new Set(dependenciesOf(chapterDir, path).files);
    const missed = [...opened].filter((rel) => !known.has(rel) && !isDirectory(chapterDir, rel));
    const file = relative(ROOT, join(chapterDir, path));
    findings.push({ file, missed, failed: !ok });
    console.log(
      `${missed.length === 0 ? "ok  " : "MISS"} ${file}${ok ? "" : " (the test failed)"}`,
    );
    for (const rel of missed) console.log(`       opened ${rel}, not among its dependencies`);
  }
}

function isDirectory(chapterDir: string, rel: string): boolean {
  try {
    readdirSync(join(chapterDir, rel));
    return true;
  } catch {
    return false;
  }
}

await Promise.all([worker(), worker()]);
const missing = findings.filter((finding) => finding.missed.length > 0);
const failed = findings.filter((finding) => finding.failed);
console.log(
  `\naudited ${findings.length} chapter test files: ${missing.length} opened a chapter file the selection does not know, ${failed.length} failed`,
);
process.exitCode = missing.length > 0 || failed.length > 0 ? 1 : 0;
