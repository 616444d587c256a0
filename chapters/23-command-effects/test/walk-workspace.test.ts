import { spawnSync } from "node:child_process";
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { listFilesTool } from "../src/tools/list-files.ts";
import { runToolCall } from "../src/tools/run-tool-call.ts";
import { searchTextTool } from "../src/tools/search-text.ts";
import { walkWorkspace } from "../src/tools/walk-workspace.ts";
import { useTempWorkspace } from "./tool-test-workspace.ts";

// The real readFile, counted: how many .gitignore files the walk opens.
vi.mock("node:fs/promises", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs/promises")>();
  return { ...actual, readFile: vi.fn(actual.readFile) };
});

const workspace = useTempWorkspace();

async function put(relPath: string, content = "") {
  const file = path.join(workspace.root(), relPath);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, content);
}

async function walk(signal?: AbortSignal, skipped: string[][] = []): Promise<string[]> {
  const files: string[] = [];
  const onSkip = (file: string, why: string) => skipped.push([file, why]);
  for await (const file of walkWorkspace(workspace.root(), ".", signal, onSkip)) files.push(file);
  return files;
}

/** What git itself lists as untracked and not ignored, with no user or system config. */
function gitListing(root: string): string[] {
  const git = (...args: string[]) => {
    const env = { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" };
    const result = spawnSync("git", ["-c", "core.excludesFile=/dev/null", ...args], {
      cwd: root,
      env: { ...env, HOME: root, XDG_CONFIG_HOME: root },
      encoding: "utf8",
    });
    if (result.status !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr}`);
    return result.stdout;
  };
  git("init", "-q");
  return git("ls-files", "-z", "--others", "--exclude-standard").split("\0").filter(Boolean);
}

const run = async (name: string, args: object) =>
  (
    await runToolCall(
      [listFilesTool, searchTextTool],
      { id: "t", function: { name, arguments: JSON.stringify(args) } },
      workspace.context(),
    )
  ).content;

describe("walkWorkspace", () => {
  it("matches .gitignore rules case-sensitively, as git on Linux does", async () => {
    await put(".gitignore", "CHANGELOG.md\n");
    await put("CHANGELOG.md");
    await put("docs/changelog.md");
    expect(await walk()).toEqual([".gitignore", "docs/changelog.md"]);
  });

  it("reads rules only in the folders whose listing shows a .gitignore", async () => {
    await put("a/b/c/file.txt");
    await put("a/b/.gitignore", "*.log\n");
    await put("a/b/c/trace.log");
    await put("d/e/file.txt");
    vi.mocked(readFile).mockClear();
    expect(await walk()).toEqual(["a/b/.gitignore", "a/b/c/file.txt", "d/e/file.txt"]);
    const folders = vi
      .mocked(readFile)
      .mock.calls.map(([file]) => path.relative(workspace.root(), path.dirname(String(file))));
    expect(new Set(folders)).toEqual(new Set([".git/info", "a/b"]));
  });

  it("does not follow a symlinked .gitignore, as git does not", async () => {
    await put("rules.txt", "secret.txt\n");
    await put("secret.txt");
    await symlink("rules.txt", path.join(workspace.root(), ".gitignore"));
    expect(await walk()).toEqual(["rules.txt", "secret.txt"]);
  });

  it("lets an abort from the event loop stop the walk between folders", async () => {
    for (const folder of ["a", "b", "c"]) await put(`${folder}/file.txt`);
    const controller = new AbortController();
    // Runs at the event loop's next turn, as a Ctrl-C handler would.
    setImmediate(() => controller.abort());
    await expect(walk(controller.signal)).rejects.toThrow(/aborted/);
  });

  it("lists what git lists: the deepest rule decides, .git/info/exclude is the weakest", async () => {
    await put(
      ".gitignore",
      "*.log\nbuild/\na\n*.tmp\n!important.tmp\nlogs/\ndir/**\n!dir/keep/\n!special.txt\n",
    );
    await put("app.log");
    await put("sub/.gitignore", "!keep.log\n/only-here.txt\n");
    for (const file of ["keep.log", "other.log", "only-here.txt", "deeper/only-here.txt"]) {
      await put(`sub/${file}`);
    }
    await put("build/out.js");
    await put("pkg/.gitignore", "!build/\n");
    await put("pkg/build/out.js");
    await put("pkg/build/trace.log");
    // A folder the root ignores ("a") and x/.gitignore re-includes: what is inside is matched
    // on its own, as git does, not all ignored with the folder.
    await put("x/.gitignore", "!a\n");
    await put("x/a/f.txt");
    await put("x/a/g.log");
    // git does not look inside an ignored folder, so its .gitignore cannot re-include anything.
    await put("logs/.gitignore", "!keep.txt\n");
    await put("logs/keep.txt");
    await put("dir/x.txt");
    await put("dir/keep/y.txt");
    await put("dir/keep/.gitignore", "!y.txt\n");
    for (const file of [
      "notes.tmp",
      "important.tmp",
      "special.txt",
      "secret.txt",
      "d/secret.txt",
    ]) {
      await put(file);
    }
    await put("star[1]*.txt");
    const expected = gitListing(workspace.root()).sort();
    await put(".git/info/exclude", "secret.txt\nspecial.txt\n");
    const withExclude = gitListing(workspace.root()).sort();
    expect(withExclude).toContain("sub/keep.log");
    expect(withExclude).toContain("x/a/f.txt");
    expect(withExclude).toContain("special.txt");
    expect(withExclude).not.toContain("d/secret.txt");
    expect(expected).toContain("d/secret.txt");
    expect((await walk()).sort()).toEqual(withExclude);
  });

  it("skips a folder whose name is not UTF-8, says so, and lists the rest", async () => {
    await put("a.txt", "needle\n");
    await mkdir(Buffer.concat([Buffer.from(workspace.root() + "/"), Buffer.from([0x66, 0xff])]));
    await put("z/b.txt", "needle\n");
    const skipped: string[][] = [];
    expect(await walk(undefined, skipped)).toEqual(["a.txt", "z/b.txt"]);
    expect(skipped).toEqual([["f\uFFFD", "whose name is not valid UTF-8"]]);
    expect(await run("list_files", {})).toBe(
      "2 file(s) in the workspace:\na.txt\nz/b.txt\n(skipped 1 entry whose name is not valid UTF-8)",
    );
    expect(await run("search_text", { query: "needle" })).toBe(
      "a.txt:1: needle\nz/b.txt:1: needle\n(skipped 1 entry whose name is not valid UTF-8)",
    );
  });

  it("skips a folder whose path is over the OS limit, says so, and lists the rest", async () => {
    await put("a.txt");
    // Only relative steps can build a path longer than PATH_MAX (4096 bytes on Linux).
    const name = "d".repeat(200);
    const script = `cd "$1" && for i in $(seq 25); do mkdir ${name} && cd ${name}; done && touch f`;
    const made = spawnSync("bash", ["-c", script, "bash", workspace.root()]);
    expect(made.status).toBe(0);
    try {
      const skipped: string[][] = [];
      const files = await walk(undefined, skipped);
      expect(files).toEqual(["a.txt"]);
      expect(skipped).toHaveLength(1);
      expect(skipped[0]?.[1]).toBe("that could not be read (ENAMETOOLONG)");
      expect(await run("list_files", {})).toMatch(
        /\n\(skipped 1 entry that could not be read \(ENAMETOOLONG\)\)$/,
      );
    } finally {
      // fs.rm works with whole paths, which are too long here.
      spawnSync("rm", ["-rf", name], { cwd: workspace.root() });
    }
  });
});
