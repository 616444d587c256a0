// The chapters' test bundles (scripts/lib/chapter-bundle.ts) stand in for `node --import tsx
// src/main.ts` in the demos, the captures and the attacks: they must run what the source says now.
// A tiny program in a scratch folder plays the chapter, so its files can be edited.
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chapterBundle, chapterBundleStaleReason } from "../../scripts/lib/chapter-bundle.ts";

let dir = "";
let cache = "";
let entry = "";
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "chapter-bundle-"));
  cache = join(dir, "cache");
  entry = join(dir, "99-example", "src", "main.ts");
  await mkdir(join(dir, "99-example", "src"), { recursive: true });
  await writeFile(join(dir, "99-example", "src", "greeting.ts"), 'export const GREETING = "hi";\n');
  await writeFile(join(dir, "99-example", "src", "note.md"), "a note\n");
  await writeFile(
    entry,
    [
      'import { readFileSync } from "node:fs";',
      'import { pathToFileURL } from "node:url";',
      'import { GREETING } from "./greeting.ts";',
      'const note = readFileSync(new URL("note.md", import.meta.url), "utf8").trim();',
      // The chapters' "am I the program?" check: main runs only when argv[1] is this file.
      "if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {",
      '  console.log([GREETING, note, process.argv[1], ...process.argv.slice(2)].join("|"));',
      "}",
      "",
    ].join("\n"),
  );
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const run = (bundle: string, ...args: string[]): string =>
  execFileSync(process.execPath, [bundle, ...args], { cwd: dir, encoding: "utf8" }).trim();

describe("a chapter's test bundle", () => {
  it("runs like the source under tsx: argv[1] names main.ts, files beside a module are found", async () => {
    const bundle = await chapterBundle(entry, cache);
    expect(run(bundle, "a", "b")).toBe(`hi|a note|${entry}|a|b`);
  });

  it("is built once, then reused while no source changed", async () => {
    const bundle = await chapterBundle(entry, cache);
    const builtAt = (await stat(bundle)).mtimeMs;
    expect(chapterBundleStaleReason(entry, bundle)).toBeUndefined();
    const [again, concurrently] = await Promise.all([
      chapterBundle(entry, cache),
      chapterBundle(entry, cache),
    ]);
    expect([again, concurrently]).toEqual([bundle, bundle]);
    expect((await stat(bundle)).mtimeMs).toBe(builtAt);
  });

  it("is rebuilt when a module it was built from changes, and runs the new code", async () => {
    const bundle = await chapterBundle(entry, cache);
    await writeFile(
      join(dir, "99-example", "src", "greeting.ts"),
      'export const GREETING = "hello";\n',
    );
    expect(chapterBundleStaleReason(entry, bundle)).toMatch(/greeting\.ts changed$/);
    expect(run(await chapterBundle(entry, cache))).toBe(`hello|a note|${entry}`);
    expect(chapterBundleStaleReason(entry, bundle)).toBeUndefined();
  });

  it("reads a file beside a module where it is, so its edit shows without a rebuild", async () => {
    const bundle = await chapterBundle(entry, cache);
    await writeFile(join(dir, "99-example", "src", "note.md"), "an edited note\n");
    expect(run(bundle)).toBe(`hello|an edited note|${entry}`);
  });
});
