// The drift guard on a scratch repository: check fails on undeclared changes, sync carries fixes
// forward (copy or clean three-way merge) and never writes conflict markers or loses work.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const SCRIPT = resolve(import.meta.dirname, "../../scripts/chapters.ts");
let root: string;

function write(path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}
const read = (path: string): string => readFileSync(join(root, path), "utf8");
function chapter(slug: string, lesson: string[]): void {
  write(`chapters/${slug}/chapter.json`, JSON.stringify({ title: slug, lesson }));
}
function run(command: "check" | "sync"): { code: number; out: string } {
  const r = spawnSync(process.execPath, ["--import", import.meta.resolve("tsx"), SCRIPT, command], {
    env: { ...process.env, CHAPTERS_ROOT: root },
    encoding: "utf8",
  });
  return { code: r.status ?? -1, out: r.stdout + r.stderr };
}
function commit(): void {
  execFileSync("git", ["add", "-A"], { cwd: root });
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x"], {
    cwd: root,
  });
}

const MAIN = "line 1\nline 2\nline 3\nline 4\nline 5\n";

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "chapters-"));
  execFileSync("git", ["init", "-q"], { cwd: root });
  chapter("01-one", []);
  chapter("02-two", ["src/extra.ts", "src/main.ts"]);
  for (const slug of ["01-one", "02-two"]) {
    write(`chapters/${slug}/src/util.ts`, "export const a = 1;\n");
  }
  write("chapters/01-one/src/main.ts", MAIN);
  write("chapters/02-two/src/main.ts", MAIN.replace("line 5", "line 5 (chapter two)"));
  write("chapters/02-two/src/extra.ts", "export const extra = 2;\n");
  commit();
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("chapters:check", () => {
  it("passes when chapters differ only by their lessons", () => {
    expect(run("check")).toMatchObject({ code: 0 });
  });

  it("fails on a change outside the lesson and names the fix", () => {
    write("chapters/02-two/src/util.ts", "export const a = 2;\n");
    const { code, out } = run("check");
    expect(code).toBe(1);
    expect(out).toContain(
      "chapters/02-two/src/util.ts differs from chapters/01-one/src/util.ts but is not part of chapter 2's lesson.",
    );
  });

  it("fails when the lesson lists a file the chapter does not change", () => {
    write("chapters/02-two/src/main.ts", MAIN);
    const { code, out } = run("check");
    expect(code).toBe(1);
    expect(out).toContain("is listed in chapter 2's lesson but is identical to chapter 1's");
  });
});

describe("a missing chapter", () => {
  beforeEach(() => {
    chapter("04-four", ["src/main.ts"]);
    write("chapters/04-four/src/util.ts", "export const a = 4;\n");
    write("chapters/04-four/src/main.ts", MAIN);
    commit();
  });

  it("fails check, naming it, and compares nothing across it", () => {
    const { code, out } = run("check");
    expect(code).toBe(1);
    expect(out).toContain(
      "chapter 3 is missing: 02-two is followed by 04-four (check and sync skip the pair)",
    );
    expect(out).toContain("found 1 problem(s)");
  });

  it("keeps sync from carrying a fix across it", () => {
    write("chapters/01-one/src/util.ts", "export const a = 42; // fixed\n");
    const { code, out } = run("sync");
    expect(code).toBe(0);
    expect(out).toContain("chapter 3 is missing");
    expect(read("chapters/02-two/src/util.ts")).toBe("export const a = 42; // fixed\n");
    expect(read("chapters/04-four/src/util.ts")).toBe("export const a = 4;\n");
  });
});

describe("chapters:sync", () => {
  it("copies a fix into a chapter that does not change the file", () => {
    write("chapters/01-one/src/util.ts", "export const a = 42; // fixed\n");
    expect(run("sync").code).toBe(0);
    expect(read("chapters/02-two/src/util.ts")).toBe("export const a = 42; // fixed\n");
    expect(run("check").code).toBe(0);
  });

  it("merges a fix into a lesson file when it does not conflict", () => {
    write("chapters/01-one/src/main.ts", MAIN.replace("line 1", "line 1 (fixed)"));
    expect(run("sync").code).toBe(0);
    expect(read("chapters/02-two/src/main.ts")).toBe(
      MAIN.replace("line 1", "line 1 (fixed)").replace("line 5", "line 5 (chapter two)"),
    );
  });

  it("leaves a lesson file untouched on a conflict, without markers", () => {
    const before = read("chapters/02-two/src/main.ts");
    write("chapters/01-one/src/main.ts", MAIN.replace("line 5", "line 5 (fixed)"));
    const { code, out } = run("sync");
    expect(code).toBe(1);
    expect(out).toContain("chapters/02-two/src/main.ts was left as it is");
    expect(read("chapters/02-two/src/main.ts")).toBe(before);
  });

  it("never overwrites undeclared uncommitted work in a later chapter", () => {
    write("chapters/02-two/src/util.ts", "export const a = 'my work in progress';\n");
    write("chapters/01-one/src/util.ts", "export const a = 42;\n");
    const { code, out } = run("sync");
    expect(code).toBe(1);
    expect(out).toContain("has changes of its own but is not in chapter 2's lesson");
    expect(read("chapters/02-two/src/util.ts")).toBe("export const a = 'my work in progress';\n");
  });
});
