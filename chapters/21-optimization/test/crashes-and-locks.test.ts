import { spawn, spawnSync } from "node:child_process";
import {
  mkdir,
  mkdtemp,
  open,
  readdir,
  readFile,
  realpath,
  rename,
  rm,
  symlink,
  writeFile,
} from "node:fs/promises";
import { createRequire } from "node:module";
import { hostname, tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { discardWrite, stageWrite } from "../src/fs/atomic-write.ts";
import { sha256 } from "../src/fs/file-hash.ts";
import { UndoRefusedError, undoRun } from "../src/ledger/undo.ts";
import { applyPatch } from "../src/patch/apply-patch.ts";
import { lockFiles } from "../src/patch/file-locks.ts";
import { patch } from "./apply-patch-fixtures.ts";
import { smallDisk } from "./small-disk.ts";

const folders: string[] = [];
afterEach(async () => {
  await Promise.all(folders.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function folder(files: Record<string, string> = {}): Promise<string> {
  const dir = await realpath(await mkdtemp(path.join(tmpdir(), "crashes-")));
  folders.push(dir);
  for (const [name, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await writeFile(path.join(dir, name), text);
  }
  return dir;
}

/** The id of a process that has exited. */
function deadPid(): number {
  return spawnSync(process.execPath, ["-e", ""]).pid!;
}

describe("temp files left by a killed process", () => {
  it("are removed by the next write into their folder: ours only, and only when their process is gone", async () => {
    const root = await folder({ "f.txt": "a\n" });
    const names = {
      dead: `.f.txt.${deadPid()}-0123456789ab.agent-tmp`,
      running: `.f.txt.${process.ppid}-0123456789ab.agent-tmp`,
      notOurs: ".f.txt.123-notrandom.agent-tmp",
      chapter8Style: ".f.txt.0123456789ab.tmp",
    };
    for (const name of Object.values(names)) await writeFile(path.join(root, name), "partial");
    await discardWrite(await stageWrite(path.join(root, "f.txt"), Buffer.from("b\n"), undefined));
    expect((await readdir(root)).sort()).toEqual(
      ["f.txt", names.running, names.notOurs, names.chapter8Style].sort(),
    );
  });

  it("name the process that wrote them", async () => {
    const root = await folder();
    const staged = await stageWrite(path.join(root, "f.txt"), Buffer.from("x"), undefined);
    expect(path.basename(staged.temp)).toMatch(
      new RegExp(`^\\.f\\.txt\\.${process.pid}-[0-9a-f]{12}\\.agent-tmp$`),
    );
    await discardWrite(staged);
  });
});

describe("locks between processes", () => {
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
  const holder = fileURLToPath(new URL("./lock-holder.ts", import.meta.url));

  /** Another process holding `realPath`'s lock until `release` is called. */
  async function holdLock(lockFolder: string, realPath: string) {
    const child = spawn(process.execPath, ["--import", tsx, holder, lockFolder, realPath]);
    const firstLine = await new Promise((resolve) =>
      createInterface({ input: child.stdout }).once("line", resolve),
    );
    expect(firstLine).toBe("locked");
    const exited = new Promise((resolve) => child.on("close", resolve));
    return { pid: child.pid!, release: () => (child.stdin.end(), exited) };
  }

  it("keep a second process out until the first lets go", async () => {
    const root = await folder({ "f.txt": "a\n" });
    const locks = path.join(root, ".agent/locks");
    const file = path.join(root, "f.txt");
    const other = await holdLock(locks, file);
    await expect(lockFiles(locks, [file], 50)).rejects.toThrow(
      new RegExp(
        `^${file} is being written by process ${other.pid} on ${hostname()} \\(since .*\\): ` +
          `its lock ${locks}/[0-9a-f]{32}\\.lock was still held after 0\\.05 s\\.$`,
      ),
    );
    await other.release();
    await (
      await lockFiles(locks, [file], 50)
    )();
    expect(await readdir(locks)).toEqual([]);
  }, 20_000);

  it("are held by apply_patch from the read of a file to its rename", async () => {
    const root = await folder({ "f.txt": "a\n" });
    const attempt = () => lockFiles(path.join(root, ".agent/locks"), [path.join(root, "f.txt")], 0);
    const result = await applyPatch(patch("*** Update File: f.txt", "@@", "-a", "+b"), {
      cwd: root,
      beforeCommit: () => expect(attempt()).rejects.toThrow(`by process ${process.pid} on`),
    });
    expect(result.success).toBe(true);
    await (
      await attempt()
    )();
  });

  it("take over the lock of a process that is gone, and never one from another machine", async () => {
    const root = await folder({ "f.txt": "a\n" });
    const locks = path.join(root, ".agent/locks");
    const file = path.join(root, "f.txt");
    // A lock is named after the hash of the path and holds "pid host since": easy to fake.
    const fake = async (owner: string) => {
      await mkdir(locks, { recursive: true });
      await writeFile(path.join(locks, `${sha256(file).slice(0, 32)}.lock`), owner);
    };
    await fake(`${deadPid()} ${hostname()} 2025-01-31T14:25:01.000Z`);
    await (
      await lockFiles(locks, [file], 20)
    )();
    await fake(`${deadPid()} elsewhere 2025-01-31T14:25:01.000Z`);
    await expect(lockFiles(locks, [file], 20)).rejects.toThrow(
      " on elsewhere (since 2025-01-31T14:25:01.000Z)",
    );
  });
});

describe("backups and the manifest, for undo", () => {
  it("undo refuses a symlinked .agent/ with what to do", async () => {
    const root = await folder({ "f.txt": "a\n" });
    await applyPatch(patch("*** Update File: f.txt", "@@", "-a", "+b"), { cwd: root, runId: "r" });
    // The run's records, moved out of the workspace and linked back in.
    const outside = path.join(await folder(), "agent");
    await rename(path.join(root, ".agent"), outside);
    await symlink(outside, path.join(root, ".agent"));
    const refusal = await undoRun(root, "r").catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(UndoRefusedError);
    expect((refusal as Error).message).toBe(
      `Nothing was undone: ${root}/.agent is a symbolic link to ${outside}, so the agent's runs, ` +
        "backups and notes would be written there. Remove the link (a repository should not ship " +
        "one) or replace it with a real folder, then run again.",
    );
    expect(await readFile(path.join(root, "f.txt"), "utf8")).toBe("b\n");
  });
});

const disk = smallDisk();

/** Fills the small disk, then frees `free` bytes again. */
async function fillAllBut(free: number): Promise<void> {
  const filler = path.join(disk.dir, "filler");
  await writeFile(filler, Buffer.alloc(64 * 1024)).catch(() => undefined);
  const handle = await open(filler, "r+");
  await handle.truncate(Math.max(0, (await handle.stat()).size - free));
  await handle.close();
}

describe("a full disk", () => {
  it.skipIf(disk.skip !== undefined)(
    disk.skip ?? "never keeps half a backup: the next patch of the run backs the file up whole",
    async () => {
      const original = "x".repeat(20_000);
      await writeFile(path.join(disk.dir, "f.txt"), original);
      // Room for the lock, the temp file (the new text is short) and part of the 20 KB backup.
      await fillAllBut(5 * 4096);
      const first = await applyPatch(
        patch("*** Update File: f.txt", "@@", `-${original}`, "+one"),
        {
          cwd: disk.dir,
          runId: "r",
        },
      );
      expect(first.failures[0]?.message).toMatch(/ENOSPC/);
      await rm(path.join(disk.dir, "filler"));
      const second = await applyPatch(
        patch("*** Update File: f.txt", "@@", `-${original}`, "+two"),
        {
          cwd: disk.dir,
          runId: "r",
        },
      );
      expect(second.success).toBe(true);
      await undoRun(disk.dir, "r");
      expect(await readFile(path.join(disk.dir, "f.txt"), "utf8")).toBe(original);
    },
  );

  it.skipIf(disk.skip !== undefined)(
    disk.skip ?? "never leaves an empty lock behind, which nobody would ever let go",
    async () => {
      await mkdir(path.join(disk.dir, "locks"), { recursive: true });
      await fillAllBut(0);
      const file = path.join(disk.dir, "f.txt");
      await expect(lockFiles(path.join(disk.dir, "locks"), [file], 20)).rejects.toThrow("ENOSPC");
      expect(await readdir(path.join(disk.dir, "locks"))).toEqual([]);
      await rm(path.join(disk.dir, "filler"));
    },
  );
});
