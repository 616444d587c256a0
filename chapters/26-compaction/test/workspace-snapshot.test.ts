import { createHash } from "node:crypto";
import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  compareSnapshots,
  snapshotWorkspace,
  SNAPSHOT_LIMITS,
  type WorkspaceSnapshot,
} from "../src/commands/workspace-snapshot.ts";
import { useTempWorkspace } from "./tool-test-workspace.ts";

const workspace = useTempWorkspace();
const hashOf = (text: string) => createHash("sha256").update(text).digest("hex");
const hashes = (snapshot: WorkspaceSnapshot) =>
  new Map([...snapshot.files].map(([path, file]) => [path, file.hash]));

async function put(relPath: string, text: string): Promise<void> {
  const target = path.join(workspace.root(), relPath);
  await mkdir(path.dirname(target), { recursive: true });
  await writeFile(target, text);
}

describe("snapshotWorkspace", () => {
  it("hashes the files list_files sees: .gitignore honoured, never .git/, node_modules/ or .agent/", async () => {
    await put(".gitignore", "dist/\n*.log\n");
    await put("src/a.mjs", "a\n");
    await put("dist/out.js", "built\n");
    await put("debug.log", "log\n");
    await put(".git/HEAD", "ref\n");
    await put("node_modules/x/index.js", "x\n");
    await put(".agent/runs/r.jsonl", "{}\n");

    const snapshot = await snapshotWorkspace(workspace.root());
    expect(hashes(snapshot)).toEqual(
      new Map([
        [".gitignore", hashOf("dist/\n*.log\n")],
        ["src/a.mjs", hashOf("a\n")],
      ]),
    );
    expect(snapshot.skipped.size).toBe(0);
  });

  it("leaves secret files out: they are never hashed, nor copied into .agent/backups", async () => {
    await put(".env", "API_KEY=secret\n");
    await put(".ssh/id_rsa", "key\n");
    await put(".env.example", "API_KEY=\n");
    const snapshot = await snapshotWorkspace(workspace.root());
    expect([...snapshot.files.keys()].sort()).toEqual([".env.example"]);
    expect(snapshot.skipped.size).toBe(0);
  });

  it("stops hashing at the caps and says which files it skipped", async () => {
    for (const name of ["a", "b", "c", "d"]) await put(`${name}.txt`, `${name}\n`);
    await put("big.bin", "x".repeat(100));
    const limits = { ...SNAPSHOT_LIMITS, maxFiles: 3, maxFileBytes: 50 };

    const snapshot = await snapshotWorkspace(workspace.root(), limits);
    expect([...snapshot.files.keys()]).toEqual(["a.txt", "b.txt", "c.txt"]);
    expect([...snapshot.skipped]).toEqual(["big.bin", "d.txt"]);

    const byTotal = await snapshotWorkspace(workspace.root(), {
      ...SNAPSHOT_LIMITS,
      maxTotalBytes: 5,
    });
    expect([...byTotal.files.keys()]).toEqual(["a.txt", "b.txt"]);
    expect(byTotal.skipped.size).toBe(3);
  });
});

describe("compareSnapshots", () => {
  it("lists created, changed and deleted files with their hashes, sorted by path", async () => {
    await put("keep.txt", "same\n");
    await put("src/edit.txt", "old\n");
    await put("gone.txt", "bye\n");
    const before = await snapshotWorkspace(workspace.root());
    await put("src/edit.txt", "new\n");
    await rm(path.join(workspace.root(), "gone.txt"));
    await put("added.txt", "hi\n");
    const after = await snapshotWorkspace(workspace.root());

    expect(compareSnapshots(before, after)).toEqual([
      { path: "added.txt", status: "created", before: null, after: hashOf("hi\n") },
      { path: "gone.txt", status: "deleted", before: hashOf("bye\n"), after: null },
      { path: "src/edit.txt", status: "changed", before: hashOf("old\n"), after: hashOf("new\n") },
    ]);
  });

  it("does not call a file deleted when a new file pushed it past the cap", async () => {
    await put("b.txt", "b\n");
    await put("c.txt", "c\n");
    const limits = { ...SNAPSHOT_LIMITS, maxFiles: 2 };
    const before = await snapshotWorkspace(workspace.root(), limits);
    await put("a.txt", "a\n");
    const after = await snapshotWorkspace(workspace.root(), limits);

    expect(after.skipped).toEqual(new Set(["c.txt"]));
    expect(compareSnapshots(before, after)).toEqual([
      { path: "a.txt", status: "created", before: null, after: hashOf("a\n") },
    ]);
  });
});
