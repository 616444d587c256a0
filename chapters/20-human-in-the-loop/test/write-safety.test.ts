import {
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  realpath,
  rename,
  rm,
  symlink,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { agentFolder } from "../src/fs/agent-folder.ts";
import { commitWrite, deleteFile, discardWrite, stageWrite } from "../src/fs/atomic-write.ts";
import { RunLedger } from "../src/ledger/run-ledger.ts";
import { applyPatch } from "../src/patch/apply-patch.ts";
import { patch } from "./apply-patch-fixtures.ts";
import { smallDisk } from "./small-disk.ts";

const folders: string[] = [];
afterEach(async () => {
  await Promise.all(folders.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A fresh real folder (symlinks resolved, as write-path.ts hands them to the writers). */
async function folder(files: Record<string, string> = {}): Promise<string> {
  const dir = await realpath(await mkdtemp(path.join(tmpdir(), "write-safety-")));
  folders.push(dir);
  for (const [name, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await writeFile(path.join(dir, name), text);
  }
  return dir;
}

/** What another process does to src/ between the path check and the write: a link to `outside`. */
async function swapForLink(root: string, outside: string): Promise<void> {
  await rename(path.join(root, "src"), path.join(root, "src.parked"));
  await symlink(outside, path.join(root, "src"));
}

describe("a folder swapped for a symlink after the check", () => {
  it("is refused before any byte is written through it", async () => {
    const root = await folder({ "src/f.txt": "one\n" });
    const outside = await folder();
    await swapForLink(root, outside);
    await expect(
      stageWrite(path.join(root, "src/f.txt"), Buffer.from("x"), undefined),
    ).rejects.toThrow(
      `Refusing to write into ${root}/src: it now leads to ${outside}, so a folder on the way was ` +
        "replaced by a link during the write. Nothing was written there.",
    );
    await expect(deleteFile(path.join(root, "src/f.txt"))).rejects.toThrow(
      "Refusing to write into",
    );
    expect(await readdir(outside)).toEqual([]);
  });

  it("cannot redirect a staged write: the rename lands in the folder that was checked", async () => {
    const root = await folder({ "src/f.txt": "one\n" });
    const outside = await folder({ "f.txt": "decoy\n" });
    const staged = await stageWrite(path.join(root, "src/f.txt"), Buffer.from("two\n"), undefined);
    await swapForLink(root, outside);
    await commitWrite(staged);
    expect(await readFile(path.join(root, "src.parked/f.txt"), "utf8")).toBe("two\n");
    expect(await readdir(path.join(root, "src.parked"))).toEqual(["f.txt"]);
    expect(await readdir(outside)).toEqual(["f.txt"]);
    expect(await readFile(path.join(outside, "f.txt"), "utf8")).toBe("decoy\n");
  });

  it("creates missing folders one at a time inside the checked parent", async () => {
    const root = await folder();
    const staged = await stageWrite(path.join(root, "a/b/f.txt"), Buffer.from("x"), undefined);
    expect(staged.createdFolder).toBe(path.join(root, "a"));
    await discardWrite(staged);
    expect(await readdir(root)).toEqual([]);
  });
});

describe("a .agent/ that is not a real folder of the workspace", () => {
  it("is refused before a patch writes anything, with what to do", async () => {
    const root = await folder({ "f.txt": "a\n" });
    const outside = await folder();
    await symlink(outside, path.join(root, ".agent"));
    const result = await applyPatch(patch("*** Update File: f.txt", "@@", "-a", "+b"), {
      cwd: root,
    });
    expect(result.failures).toEqual([
      {
        path: "",
        code: "io_error",
        message: `${root}/.agent is a symbolic link to ${outside}, so the agent's runs, backups and notes would be written there.`,
        hint: "Remove the link (a repository should not ship one) or replace it with a real folder, then run again.",
      },
    ]);
    expect(await readFile(path.join(root, "f.txt"), "utf8")).toBe("a\n");
    expect(await readdir(outside)).toEqual([]);
  });

  it("keeps the ledger from being written through a link", async () => {
    const root = await folder();
    const outside = await folder();
    await symlink(outside, path.join(root, ".agent"));
    await expect(RunLedger.open(root, { task: "t", model: "m" })).rejects.toThrow(
      `${root}/.agent is a symbolic link to ${outside}`,
    );
    expect(await readdir(outside)).toEqual([]);
  });

  it.each(["runs", "backups", "notes", "locks"])(
    "refuses a symlinked .agent/%s too, as a repository can ship one",
    async (name) => {
      const root = await folder();
      const outside = await folder();
      await mkdir(path.join(root, ".agent"));
      await symlink(outside, path.join(root, ".agent", name));
      await expect(agentFolder(root)).rejects.toThrow(
        `${root}/.agent/${name} is a symbolic link to ${outside}, so the agent's runs, backups and notes would be written there.`,
      );
      await expect(RunLedger.open(root, { task: "t", model: "m" })).rejects.toThrow(
        "is a symbolic link",
      );
      expect(await readdir(outside)).toEqual([]);
    },
  );
});

const disk = smallDisk();

describe("a full disk", () => {
  it.skipIf(disk.skip !== undefined)(
    disk.skip ?? "leaves no partial temp file when a staged write runs out of space",
    async () => {
      const target = path.join(disk.dir, "big.txt");
      await expect(stageWrite(target, Buffer.alloc(100_000), undefined)).rejects.toThrow("ENOSPC");
      expect(await readdir(disk.dir)).toEqual([]);
    },
  );

  it.skipIf(disk.skip !== undefined)(
    disk.skip ?? "cuts off the half line a full disk took, so the next event starts a clean line",
    async () => {
      const ledger = await RunLedger.open(disk.dir, { task: "t", model: "m" });
      // Far more than the disk holds: the write takes what room there is, then fails.
      const huge = { tool: "x", outcome: "error" as const, code: "z".repeat(200_000) };
      await expect(ledger.recordToolCall(huge)).rejects.toThrow("ENOSPC");
      await ledger.recordToolCall({ tool: "read_file", outcome: "ok" });
      await ledger.close();
      const lines = (await readFile(ledger.path, "utf8")).trimEnd().split("\n");
      expect(lines.map((line) => (JSON.parse(line) as { type: string }).type)).toEqual([
        "run_start",
        "tool_call",
      ]);
      await rm(path.join(disk.dir, ".agent"), { recursive: true });
    },
  );
});

it("agentFolder names the real .agent folder, whether or not it exists yet", async () => {
  const root = await folder();
  expect(await agentFolder(path.join(root, "."))).toBe(path.join(root, ".agent"));
  await expect(readdir(root)).resolves.toEqual([]);
});
