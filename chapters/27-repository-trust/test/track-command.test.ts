import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import {
  chmod,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  symlink,
  writeFile,
} from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import type { CommandOutcome } from "../src/commands/run-command.ts";
import { trackCommand } from "../src/commands/track-command.ts";
import { SNAPSHOT_LIMITS } from "../src/commands/workspace-snapshot.ts";
import { RunLedger } from "../src/ledger/run-ledger.ts";
import { undoRun, UndoRefusedError } from "../src/ledger/undo.ts";
import { applyPatchTool } from "../src/tools/apply-patch-tool.ts";
import { readFileTool } from "../src/tools/read-file.ts";
import { runToolCall } from "../src/tools/run-tool-call.ts";
import { smallDisk } from "./small-disk.ts";
import { useTempWorkspace } from "./tool-test-workspace.ts";

const execFileAsync = promisify(execFile);

const workspace = useTempWorkspace();
const hashOf = (text: string) => createHash("sha256").update(text).digest("hex");
const CART = "export function total(a, b) {\n  return a - b;\n}\n";
const FORMATTED = "export function total(a, b) {\n  return a - b;\n}\n\n";
const FIX_PATCH =
  "*** Begin Patch\n*** Update File: src/cart.mjs\n@@ export function total(a, b) {\n-  return a - b;\n+  return a + b;\n*** End Patch\n";

const at = (relPath: string) => path.join(workspace.root(), relPath);
const onDisk = (relPath: string) => readFile(at(relPath), "utf8");
async function put(relPath: string, text: string): Promise<void> {
  await mkdir(path.dirname(at(relPath)), { recursive: true });
  await writeFile(at(relPath), text);
}

const opened: RunLedger[] = [];
async function openLedger(): Promise<RunLedger> {
  const ledger = await RunLedger.open(workspace.root(), { task: "Fix the total", model: "test" });
  opened.push(ledger);
  return ledger;
}
afterEach(async () => {
  await Promise.all(opened.splice(0).map((ledger) => ledger.close()));
});

/** A "command" that does `work` to the workspace and exits 0, as runCommand would report it. */
function fakeCommand(work: () => Promise<void>): () => Promise<CommandOutcome> {
  return async () => {
    await work();
    return {
      exitCode: 0,
      signal: null,
      timedOut: false,
      aborted: false,
      durationMs: 12,
      output: "ok\n",
    };
  };
}

async function call(ledger: RunLedger, name: string, args: object) {
  const context = { ...workspace.context(), ledger };
  return runToolCall(
    [readFileTool, applyPatchTool],
    { id: "c", function: { name, arguments: JSON.stringify(args) } },
    context,
  );
}

// A command that formats one file, deletes one and creates one.
async function formatDeleteCreate(ledger: RunLedger) {
  return trackCommand(
    ledger,
    workspace.root(),
    "node fmt.mjs",
    fakeCommand(async () => {
      await put("src/cart.mjs", FORMATTED);
      await rm(at("old.txt"));
      await put("new.txt", "new\n");
    }),
    "none",
  );
}

describe("trackCommand", () => {
  it("records the command and its changes, with hashes, in the ledger file", async () => {
    await put("src/cart.mjs", CART);
    await put("old.txt", "old\n");
    const ledger = await openLedger();
    const tracked = await formatDeleteCreate(ledger);

    const changes = [
      { path: "new.txt", status: "created", before: null, after: hashOf("new\n") },
      { path: "old.txt", status: "deleted", before: hashOf("old\n"), after: null },
      { path: "src/cart.mjs", status: "changed", before: hashOf(CART), after: hashOf(FORMATTED) },
    ];
    expect(tracked).toMatchObject({ outcome: { exitCode: 0 }, changes, skipped: 0 });
    const lines = (await readFile(ledger.path, "utf8")).trimEnd().split("\n");
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({
      type: "command",
      n: 1,
      command: "node fmt.mjs",
      exit_code: 0,
      signal: null,
      timed_out: false,
      aborted: false,
      duration_ms: 12,
      output: "ok\n",
      sandbox: "none",
      changes,
      skipped: 0,
    });
    expect(ledger.changedFiles()).toEqual([
      { path: "new.txt", status: "added", before_sha256: undefined, after_sha256: hashOf("new\n") },
      {
        path: "old.txt",
        status: "deleted",
        before_sha256: hashOf("old\n"),
        after_sha256: undefined,
      },
      {
        path: "src/cart.mjs",
        status: "modified",
        before_sha256: hashOf(CART),
        after_sha256: hashOf(FORMATTED),
      },
    ]);
    // A second command is number 2, and a replayed ledger knows both.
    await trackCommand(
      ledger,
      workspace.root(),
      "true",
      fakeCommand(async () => {}),
      "none",
    );
    await ledger.close();
    const loaded = await RunLedger.load(workspace.root(), ledger.runId);
    expect(
      loaded
        .events()
        .filter((event) => event.type === "command")
        .map((e) => e.n),
    ).toEqual([1, 2]);
    expect(loaded.changedByCommand("src/cart.mjs")).toEqual({ n: 1, command: "node fmt.mjs" });
  });
});

describe("apply_patch after a command", () => {
  it("refuses a file a command changed after the model read it, naming the command, until it is read again", async () => {
    await put("src/cart.mjs", CART);
    await put("old.txt", "old\n");
    const ledger = await openLedger();
    await call(ledger, "read_file", { path: "src/cart.mjs" });
    expect(ledger.lastKnownHash("src/cart.mjs")).toBe(hashOf(CART));
    await formatDeleteCreate(ledger);
    expect(ledger.lastKnownHash("src/cart.mjs")).toBeUndefined();
    expect(ledger.changedByCommand("src/cart.mjs")).toEqual({ n: 1, command: "node fmt.mjs" });

    const refused = await call(ledger, "apply_patch", { patch: FIX_PATCH });
    expect(refused.ok).toBe(false);
    expect(refused.code).toBe("not_read");
    const result = JSON.parse(refused.content.split("\n")[1]!) as { failures: object[] };
    expect(result.failures).toEqual([
      {
        path: "src/cart.mjs",
        code: "not_read",
        message:
          "src/cart.mjs was changed by command 1 (`node fmt.mjs`) and has not been read in full since; read it again before patching it.",
        hint: "Read src/cart.mjs with read_file first, then send the patch again.",
      },
    ]);
    expect(await onDisk("src/cart.mjs")).toBe(FORMATTED);

    await call(ledger, "read_file", { path: "src/cart.mjs" });
    expect((await call(ledger, "apply_patch", { patch: FIX_PATCH })).ok).toBe(true);
    expect(await onDisk("src/cart.mjs")).toBe(FORMATTED.replace("a - b", "a + b"));
    // The agent's own write is the last change now: no command to name any more.
    expect(ledger.changedByCommand("src/cart.mjs")).toBeUndefined();
  });
});

describe("undo after a command", () => {
  it("restores a changed file, brings back a deleted one and removes a created one", async () => {
    await put("src/cart.mjs", CART);
    await put("old.txt", "old\n");
    const ledger = await openLedger();
    await formatDeleteCreate(ledger);
    await ledger.finish("done");

    const result = await undoRun(workspace.root(), ledger.runId);
    expect(result).toMatchObject({
      restored: ["old.txt", "src/cart.mjs"],
      removed: ["new.txt"],
    });
    expect(await onDisk("src/cart.mjs")).toBe(CART);
    expect(await onDisk("old.txt")).toBe("old\n");
    await expect(onDisk("new.txt")).rejects.toThrow(/ENOENT/);
  });

  it("never removes a file that a changed .gitignore only stopped ignoring", async () => {
    await put(".gitignore", "local.json\n");
    await put("local.json", '{ "mine": true }\n');
    const ledger = await openLedger();
    const { changes } = await trackCommand(
      ledger,
      workspace.root(),
      "node tidy.mjs",
      fakeCommand(() => put(".gitignore", "dist/\n")),
      "none",
    );
    // local.json was there all along: only .gitignore is the command's change.
    expect(changes.map((change) => change.path)).toEqual([".gitignore"]);
    await ledger.finish("done");
    await undoRun(workspace.root(), ledger.runId);
    expect(await onDisk("local.json")).toBe('{ "mine": true }\n');
    expect(await onDisk(".gitignore")).toBe("local.json\n");
  });

  it("restores the bytes from before the run when a patch came first", async () => {
    await put("src/cart.mjs", CART);
    await put("old.txt", "old\n");
    const ledger = await openLedger();
    await call(ledger, "read_file", { path: "src/cart.mjs" });
    await call(ledger, "apply_patch", { patch: FIX_PATCH });
    await formatDeleteCreate(ledger);
    await ledger.finish("done");

    await undoRun(workspace.root(), ledger.runId);
    expect(await onDisk("src/cart.mjs")).toBe(CART);
  });

  it("refuses, writing nothing, when the user edited a file the command changed", async () => {
    await put("src/cart.mjs", CART);
    await put("old.txt", "old\n");
    const ledger = await openLedger();
    await formatDeleteCreate(ledger);
    await ledger.finish("done");
    await put("src/cart.mjs", "// mine\n");

    await expect(undoRun(workspace.root(), ledger.runId)).rejects.toThrow(
      `src/cart.mjs: the run left sha256 ${hashOf(FORMATTED)}, it is now ${hashOf("// mine\n")}.`,
    );
    expect(await onDisk("src/cart.mjs")).toBe("// mine\n");
    await expect(onDisk("old.txt")).rejects.toThrow(/ENOENT/);
    expect(await onDisk("new.txt")).toBe("new\n");
  });
});

// Odd trees: what a command (or the workspace) can do to the snapshots and to undo.
describe("trackCommand on odd trees", () => {
  const edit = (ledger: RunLedger, name: string, work: () => Promise<void>) =>
    trackCommand(ledger, workspace.root(), name, fakeCommand(work), "none");

  it("records the edits beside a folder named in invalid UTF-8, and says what it could not walk", async () => {
    await put("a.txt", "old\n");
    await mkdir(Buffer.concat([Buffer.from(workspace.root() + "/"), Buffer.from([0xff])]));
    const ledger = await openLedger();
    const tracked = await edit(ledger, "edit", () => put("a.txt", "new\n"));
    expect(tracked.changes.map((c) => `${c.status} ${c.path}`)).toEqual(["changed a.txt"]);
    // The walk (chapter 8) may skip the name or stop at it; either way this run goes on.
    const again = await edit(ledger, "edit again", () => put("a.txt", "newer\n"));
    expect(again.changes.map((c) => c.path)).toEqual(["a.txt"]);
  });

  it("records the edits beside a path over the system's length limit", async () => {
    await put("a.txt", "old\n");
    const part = "d".repeat(250);
    await execFileAsync("bash", [
      "-c",
      `cd "$1" && for i in $(seq 20); do mkdir ${part} && cd ${part}; done && echo deep > f`,
      "-",
      workspace.root(),
    ]);
    const ledger = await openLedger();
    const tracked = await edit(ledger, "edit", () => put("a.txt", "new\n"));
    expect(tracked.changes.map((c) => `${c.status} ${c.path}`)).toEqual(["changed a.txt"]);
    await execFileAsync("rm", ["-rf", at(part)]);
  });

  it("undo refuses a run whose folder a command replaced with a link, and writes nothing there", async () => {
    await put("src/a.ts", "A\n");
    const victim = await mkdtemp(path.join(tmpdir(), "victim-"));
    const ledger = await openLedger();
    await edit(ledger, "rm -rf src && ln -s ~/victim src", async () => {
      await rm(at("src"), { recursive: true });
      await symlink(victim, at("src"));
    });
    await ledger.finish("done");
    const refusal = await undoRun(workspace.root()).catch((error: Error) => error);
    expect(refusal).toBeInstanceOf(UndoRefusedError);
    expect((refusal as Error).message).toContain(
      "- src/a.ts: src is now a symbolic link, and undo never writes through a link. Remove the link (or put the folder back), then undo again.",
    );
    expect(await readdir(victim)).toEqual([]);
    // Once the link is gone, the same undo puts the file back.
    await rm(at("src"));
    await undoRun(workspace.root());
    expect(await onDisk("src/a.ts")).toBe("A\n");
    await rm(victim, { recursive: true });
  });

  it("keeps tracking a file whose folder the command added to .gitignore", async () => {
    await put("src/a.ts", "A\n");
    const ledger = await openLedger();
    const tracked = await edit(ledger, "hide it", async () => {
      await put("src/a.ts", "EVIL\n");
      await put(".gitignore", "src/\n");
    });
    expect(tracked.changes.map((c) => `${c.status} ${c.path}`)).toEqual([
      "created .gitignore",
      "changed src/a.ts",
    ]);
    // And in the next command too, though the walk no longer lists it.
    const next = await edit(ledger, "again", () => put("src/a.ts", "EVIL 2\n"));
    expect(next.changes.map((c) => `${c.status} ${c.path}`)).toEqual(["changed src/a.ts"]);
    await ledger.finish("done");
    await undoRun(workspace.root());
    expect(await onDisk("src/a.ts")).toBe("A\n");
  });

  it("says which new files a changed .gitignore may have uncovered, in the result and the ledger", async () => {
    await put(".gitignore", "*.log\n");
    await put("old.log", "the user's\n");
    const ledger = await openLedger();
    const tracked = await edit(ledger, "unignore", () => put(".gitignore", "# none\n"));
    expect(tracked.changes.map((c) => c.path)).toEqual([".gitignore"]);
    const notice =
      "This command changed a .gitignore, and 1 files appeared: they may be files that were ignored before, so they are not recorded as created (undo leaves them): old.log.";
    expect(tracked.notices).toEqual([notice]);
    const event = ledger.events().at(-1);
    expect(event).toMatchObject({ type: "command", notices: [notice] });
  });

  it("still sees a tracked file's change behind 5,000 new junk files, and names what it skipped", async () => {
    await put("z.txt", "old\n");
    const ledger = await openLedger();
    const work = fakeCommand(async () => {
      await mkdir(at("aaa"));
      for (let i = 0; i < 5_010; i += 1) await writeFile(at(`aaa/${i}.txt`), "");
      await put("z.txt", "new\n");
    });
    // At a cap of 5,000 files: the default's 50,000 would take a minute to fill here.
    const limits = { ...SNAPSHOT_LIMITS, maxFiles: 5_000 };
    const tracked = await trackCommand(ledger, workspace.root(), "junk", work, "none", limits);
    expect(tracked.changes.filter((c) => c.path === "z.txt")).toHaveLength(1);
    expect(tracked.notices[0]).toMatch(
      /^\d+ files were not checked \(past the snapshot's caps, or unreadable\): what this command did to them is not recorded, and undo cannot reverse it: aaa\/\S+, .* … and \d+ more\.$/,
    );
    expect(ledger.events().at(-1)).toMatchObject({ type: "command", notices: tracked.notices });
  });

  it("undo brings a deleted script back with its mode, and tracks .git/config but leaves it", async () => {
    await put("run.sh", "#!/bin/sh\n");
    await chmod(at("run.sh"), 0o755);
    await put(".git/config", "[core]\n");
    const ledger = await openLedger();
    const tracked = await edit(ledger, "rm run.sh; git config core.fsmonitor evil", async () => {
      await rm(at("run.sh"));
      await put(".git/config", "[core]\n\tfsmonitor = evil\n");
    });
    expect(tracked.changes.map((c) => `${c.status} ${c.path}`)).toEqual([
      "changed .git/config",
      "deleted run.sh",
    ]);
    await ledger.finish("done");
    const result = await undoRun(workspace.root());
    expect((await stat(at("run.sh"))).mode & 0o777).toBe(0o755);
    // Undo never writes in .git/ (a shipped manifest could plant a hook): it says so instead.
    expect(result.damaged).toEqual([
      "Left out .git/config: undo never writes in .git/ or .agent/ (hooks run code).",
    ]);
    expect(await onDisk(".git/config")).toBe("[core]\n\tfsmonitor = evil\n");
  });

  it("restores a recorded mode as permission bits only: a manifest's 0o4755 is not setuid", async () => {
    await put("run.sh", "#!/bin/sh\n");
    await chmod(at("run.sh"), 0o755);
    const ledger = await openLedger();
    await edit(ledger, "rm run.sh", () => rm(at("run.sh")));
    await ledger.finish("done");
    const manifest = at(`.agent/backups/${ledger.runId}/manifest.json`);
    const text = await readFile(manifest, "utf8");
    await writeFile(manifest, text.replace(/"mode": \d+/, `"mode": ${0o4755}`));
    await undoRun(workspace.root());
    expect((await stat(at("run.sh"))).mode & 0o7777).toBe(0o755);
  });
});

describe("trackCommand in a workspace of 20,000 files", () => {
  const names = Array.from(
    { length: 20_000 },
    (_, i) => `pkg-${Math.floor(i / 1_000)}/mod-${Math.floor(i / 50)}/file-${i}.ts`,
  );
  const text = (i: number) => `export const value${i} = ${i};\n`;

  it("records what a command changed, created and deleted, and undo puts back exactly that", async () => {
    for (const [i, name] of names.entries()) {
      if (i % 50 === 0) mkdirSync(path.dirname(at(name)), { recursive: true });
      writeFileSync(at(name), text(i));
    }
    // Older than the stat cache's settling time, so that its stat alone vouches for a file.
    await sleep(3_100);
    const ledger = await openLedger();
    const edit = (name: string, work: () => Promise<void>) =>
      trackCommand(ledger, workspace.root(), name, fakeCommand(work), "none");
    expect(await edit("npm test", async () => {})).toMatchObject({
      changes: [],
      skipped: 0,
      notices: [],
    });
    const [same, changed, gone1, gone2] = [names[7]!, names[12_345]!, names[100]!, names[19_999]!];
    const stamp = path.join(await mkdtemp(path.join(tmpdir(), "stamp-")), "stamp");
    await execFileAsync("touch", ["-r", at(same), stamp]);
    const tracked = await edit("node rewrite.mjs", async () => {
      // The same size, its mtime set back to the nanosecond: only the ctime, which no process can
      // set, tells.
      await writeFile(at(same), text(7).replace("7 = 7", "7 = 8"));
      await execFileAsync("touch", ["-r", stamp, at(same)]);
      await writeFile(at(changed), "export const changed = true;\n");
      await rm(at(gone1));
      await rm(at(gone2));
      await put("pkg-3/added.ts", "new\n");
      await put("zzz/added.ts", "new too\n");
    });
    expect(tracked.changes.map((c) => `${c.status} ${c.path}`)).toEqual([
      `changed ${same}`,
      `deleted ${gone1}`,
      `changed ${changed}`,
      `deleted ${gone2}`,
      "created pkg-3/added.ts",
      "created zzz/added.ts",
    ]);
    expect(tracked).toMatchObject({ skipped: 0, notices: [] });
    await ledger.finish("done");

    const result = await undoRun(workspace.root(), ledger.runId);
    expect(result).toMatchObject({
      restored: [same, gone1, changed, gone2],
      removed: ["pkg-3/added.ts", "zzz/added.ts"],
    });
    const wrong = names.filter((name, i) => readFileSync(at(name), "utf8") !== text(i));
    expect(wrong).toEqual([]);
    await expect(onDisk("zzz/added.ts")).rejects.toThrow(/ENOENT/);
    await rm(path.dirname(stamp), { recursive: true });
  }, 180_000);
});

const disk = smallDisk();

describe("a disk that fills during a command", () => {
  it.skipIf(disk.skip !== undefined)(
    disk.skip ?? "returns the result and says what could not be recorded; nothing throws",
    async () => {
      await writeFile(path.join(disk.dir, "a.txt"), "old\n");
      const ledger = await RunLedger.open(disk.dir, { task: "t", model: "m" });
      const tracked = await trackCommand(
        ledger,
        disk.dir,
        "fill the disk",
        fakeCommand(async () => {
          await writeFile(path.join(disk.dir, "a.txt"), "new\n");
          await writeFile(path.join(disk.dir, "filler"), Buffer.alloc(200_000)).catch(() => {});
        }),
        "none",
      );
      await ledger.close().catch(() => {});
      expect(tracked.changes.map((c) => c.path)).toContain("a.txt");
      expect(tracked.notices.join("\n")).toMatch(
        /Its changes could not be saved for undo \(ENOSPC[^)]*\)\.|The run's ledger could not record this command \(ENOSPC/,
      );
      await rm(path.join(disk.dir, "filler"));
      await rm(path.join(disk.dir, ".agent"), { recursive: true, force: true });
    },
  );
});

describe("a harness killed mid-command", () => {
  it("leaves undo the backups: undo RUN_ID puts back what the command changed", async () => {
    await put("a.txt", "old\n");
    await put("b.txt", "same\n");
    const src = path.resolve(import.meta.dirname, "../src");
    const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
    // A child runs a command that edits a.txt, deletes b.txt... and is killed before it returns.
    const script = `
      const { RunLedger } = await import(${JSON.stringify(pathToFileURL(`${src}/ledger/run-ledger.ts`).href)});
      const { trackCommand } = await import(${JSON.stringify(pathToFileURL(`${src}/commands/track-command.ts`).href)});
      const { writeFile, rm } = await import("node:fs/promises");
      const root = ${JSON.stringify(workspace.root())};
      const ledger = await RunLedger.open(root, { task: "t", model: "m" });
      console.log(ledger.runId);
      await trackCommand(ledger, root, "edit", async () => {
        await writeFile(root + "/a.txt", "half-done\\n");
        await rm(root + "/b.txt");
        process.kill(process.pid, "SIGKILL");
        await new Promise(() => {});
      }, "none");`;
    const child = await execFileAsync(process.execPath, [
      "--import",
      tsx,
      "--input-type=module",
      "-e",
      script,
    ]).catch((error: { stdout: string; signal: string }) => error);
    expect(child).toMatchObject({ signal: "SIGKILL" });
    const runId = child.stdout.trim();
    const result = await undoRun(workspace.root(), runId);
    expect(result).toMatchObject({ restored: ["a.txt", "b.txt"], removed: [], alreadyUndone: [] });
    expect(await onDisk("a.txt")).toBe("old\n");
    expect(await onDisk("b.txt")).toBe("same\n");
  });

  it("leaves nothing for undo when the command could not start", async () => {
    await put("a.txt", "old\n");
    const ledger = await openLedger();
    const failing = async (): Promise<CommandOutcome> => {
      throw new Error("spawn failed");
    };
    await expect(trackCommand(ledger, workspace.root(), "x", failing, "none")).rejects.toThrow(
      "spawn failed",
    );
    const manifest = JSON.parse(
      await readFile(at(`.agent/backups/${ledger.runId}/manifest.json`), "utf8"),
    ) as { patches: unknown[] };
    expect(manifest.patches).toEqual([]);
  });
});
