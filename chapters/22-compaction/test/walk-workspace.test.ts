import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
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

async function walk(signal?: AbortSignal): Promise<string[]> {
  const files: string[] = [];
  for await (const file of walkWorkspace(workspace.root(), ".", signal)) files.push(file);
  return files;
}

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
    expect(new Set(folders)).toEqual(new Set(["a/b"]));
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
});
