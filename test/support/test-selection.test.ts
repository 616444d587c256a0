// The selection must never leave out a test whose code changed. These tests build a small
// repository of chapter copies in a scratch folder, change one byte at a time, and check which
// copies run.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { dependenciesOf, namesTestPaths, selectChapterTests } from "./test-selection.ts";

let root: string;

const CHAPTER: Record<string, string> = {
  "package.json": JSON.stringify({
    name: "@x/ch01",
    description: "Chapter 01",
    type: "module",
    dependencies: { zod: "^4.1.0", diff: "^8.0.1" },
  }),
  // a.ts reads a prompt beside it; the test reaches it only through that path literal.
  "src/a.ts": [
    'import { z } from "zod";',
    'import { readFileSync } from "node:fs";',
    'import { helper } from "./helper.ts";',
    'export const prompt = () => readFileSync(new URL("prompt.md", import.meta.url), "utf8");',
    "export const schema = z.string();",
    "export { helper };",
  ].join("\n"),
  "src/helper.ts": "export const helper = 1;\n",
  "src/prompt.md": "You are a careful agent.\n",
  "src/unused.ts": "export const unused = 1;\n",
  "test/a.test.ts": 'import { prompt } from "../src/a.ts";\nprompt();\n',
  "test/b.test.ts": 'import { unused } from "../src/unused.ts";\nunused;\n',
  "test/fixtures/case/input.txt": "hello\n",
  "test/fixture.test.ts": 'const dir = new URL("fixtures/case/", import.meta.url);\ndir;\n',
  "test/snap.test.ts": "expect(1).toMatchSnapshot();\n",
  "test/__snapshots__/snap.test.ts.snap": "exports[`x`] = `1`;\n",
};

function write(path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

/** Flips the last byte of a file, the smallest change there is. */
function changeOneByte(path: string): void {
  const bytes = readFileSync(join(root, path));
  bytes[bytes.length - 1] ^= 1;
  writeFileSync(join(root, path), bytes);
}

/** Chapter-relative paths of the tests that run in one chapter. */
function running(chapter: string): string[] {
  return selectChapterTests(root)
    .run.filter((test) => test.chapter === chapter)
    .map((test) => test.path)
    .sort();
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "selection-"));
  for (const [path, text] of Object.entries(CHAPTER)) write(`chapters/01-one/${path}`, text);
  cpSync(join(root, "chapters/01-one"), join(root, "chapters/02-two"), { recursive: true });
  cpSync(join(root, "chapters/01-one"), join(root, "chapters/03-three"), { recursive: true });
  // Every chapter has a name and description of its own; they change nothing a test sees.
  write(
    "chapters/02-two/package.json",
    CHAPTER["package.json"]!.replace("ch01", "ch02").replace("Chapter 01", "Chapter 02"),
  );
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("selectChapterTests", () => {
  it("runs the first chapter's tests, and leaves out identical copies, naming the chapter that runs them", () => {
    const selection = selectChapterTests(root);
    expect(running("01-one")).toEqual([
      "test/a.test.ts",
      "test/b.test.ts",
      "test/fixture.test.ts",
      "test/snap.test.ts",
    ]);
    expect(selection.run.filter((test) => test.chapter !== "01-one")).toEqual([]);
    expect(selection.skipped.map(({ test, sameAs }) => [test.file, sameAs])).toContainEqual([
      "chapters/03-three/test/a.test.ts",
      "01-one",
    ]);
  });

  it("runs a copy again when a module it imports, even transitively, changes by one byte", () => {
    changeOneByte("chapters/02-two/src/helper.ts");
    expect(running("02-two")).toEqual(["test/a.test.ts"]);
    // Chapter 3 is compared with chapter 2, which now differs from it: its copy runs too.
    expect(running("03-three")).toEqual(["test/a.test.ts"]);
  });

  it("runs a copy again when a data file its code reads by path changes by one byte", () => {
    changeOneByte("chapters/02-two/src/prompt.md");
    expect(running("02-two")).toEqual(["test/a.test.ts"]);
  });

  it("runs a copy again when the test file, a fixture folder it names, or its snapshots change", () => {
    changeOneByte("chapters/02-two/test/b.test.ts");
    changeOneByte("chapters/02-two/test/fixtures/case/input.txt");
    changeOneByte("chapters/02-two/test/__snapshots__/snap.test.ts.snap");
    expect(running("02-two")).toEqual([
      "test/b.test.ts",
      "test/fixture.test.ts",
      "test/snap.test.ts",
    ]);
  });

  it("runs a copy again when package.json changes a setting or the version of a package it imports", () => {
    const manifest = JSON.parse(CHAPTER["package.json"]!) as { dependencies: object };
    write(
      "chapters/02-two/package.json",
      JSON.stringify({ ...manifest, dependencies: { zod: "^4.2.0", diff: "^8.0.1" } }),
    );
    expect(running("02-two")).toEqual(["test/a.test.ts"]);
    write("chapters/03-three/package.json", JSON.stringify({ ...manifest, type: "commonjs" }));
    expect(running("03-three")).toHaveLength(4);
  });

  it("leaves a copy out when only files it does not depend on changed", () => {
    changeOneByte("chapters/02-two/src/unused.ts");
    // The version of a package no test file imports.
    const manifest = JSON.parse(CHAPTER["package.json"]!) as { dependencies: object };
    write(
      "chapters/02-two/package.json",
      JSON.stringify({ ...manifest, dependencies: { zod: "^4.1.0", diff: "^9.0.0" } }),
    );
    expect(running("02-two")).toEqual(["test/b.test.ts"]);
  });

  it("runs a test that is new in a chapter", () => {
    write("chapters/02-two/test/c.test.ts", "export {};\n");
    expect(running("02-two")).toEqual(["test/c.test.ts"]);
  });
});

describe("dependenciesOf", () => {
  it("lists the test, what it reaches by import and by path, and package.json, but not the unused", () => {
    const chapter = join(root, "chapters/01-one");
    expect(dependenciesOf(chapter, "test/a.test.ts")).toEqual({
      files: ["package.json", "src/a.ts", "src/helper.ts", "src/prompt.md", "test/a.test.ts"],
      packages: ["zod"],
    });
    expect(dependenciesOf(chapter, "test/fixture.test.ts").files).toContain(
      "test/fixtures/case/input.txt",
    );
  });
});

describe("namesTestPaths", () => {
  const exists = (path: string) =>
    ["chapters/16-notes", "test/site/browser.test.ts"].includes(path);

  it("is true when an argument is a file or folder to test", () => {
    expect(namesTestPaths(["run", "chapters/16-notes"], exists)).toBe(true);
    expect(namesTestPaths(["run", "--reporter=verbose", "test/site/browser.test.ts"], exists)).toBe(
      true,
    );
  });

  it("is false for a name filter, and for an option's value such as --exclude PATH", () => {
    expect(namesTestPaths(["run", "ledger"], exists)).toBe(false);
    expect(namesTestPaths(["run", "--exclude", "test/site/browser.test.ts"], exists)).toBe(false);
  });
});
