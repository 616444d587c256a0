import {
  access,
  chmod,
  mkdir,
  mkdtemp,
  readFile,
  realpath,
  rm,
  stat,
  writeFile,
} from "node:fs/promises";
import { execFile } from "node:child_process";
import { tmpdir } from "node:os";
import { promisify } from "node:util";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RunLedger, listRuns } from "../src/ledger/run-ledger.ts";
import { backUpFile, recordInManifest } from "../src/patch/backups.ts";
import type { BackupRecord } from "../src/patch/backups.ts";
import { sha256 } from "../src/fs/file-hash.ts";
import { UndoRefusedError, describeUndo, undoRun } from "../src/ledger/undo.ts";
import { lockFiles } from "../src/patch/file-locks.ts";

const execFileAsync = promisify(execFile);

let cwd: string;
beforeEach(async () => {
  cwd = await realpath(await mkdtemp(join(tmpdir(), "undo-")));
});
afterEach(async () => {
  await rm(cwd, { recursive: true, force: true });
});

async function put(path: string, text: string): Promise<void> {
  await mkdir(dirname(join(cwd, path)), { recursive: true });
  await writeFile(join(cwd, path), text);
}

async function exists(path: string): Promise<boolean> {
  return access(join(cwd, path)).then(
    () => true,
    () => false,
  );
}

// Does what the harness and apply_patch do for one run: back up, write,
// record the backup in the manifest and the write in the ledger.
// `null` as new text deletes the file.
async function run(task: string, patches: Array<Record<string, string | null>>): Promise<string> {
  // Runs are ordered by their start time (ms): keep two runs from sharing one.
  await new Promise((resolve) => setTimeout(resolve, 5));
  const ledger = await RunLedger.open(cwd, { task, model: "test" });
  const backupDir = join(cwd, ".agent", "backups", ledger.runId);
  for (const patch of patches) {
    const records: BackupRecord[] = [];
    for (const [path, text] of Object.entries(patch)) {
      const old = await readFile(join(cwd, path)).catch(() => null);
      const backup = old === null ? null : await backUpFile(backupDir, path, old);
      if (text === null) await rm(join(cwd, path));
      else await put(path, text);
      const before = old === null ? null : sha256(old);
      const after = text === null ? null : sha256(text);
      records.push({ path, previous_sha256: before, backup, sha256: after });
      await ledger.recordWrite(path, { before: before ?? undefined, after: after ?? undefined });
    }
    await recordInManifest(backupDir, ledger.runId, records);
  }
  await ledger.finish("done");
  return ledger.runId;
}

// Each way a ledger in .agent/runs/ can be damaged, and the one line that says so.
const DAMAGED_LEDGERS: Array<{
  kind: string;
  make: (file: string) => Promise<unknown>;
  says: string;
}> = [
  { kind: "garbage line", make: (f) => writeFile(f, "not json\n"), says: ":1 is not valid JSON" },
  {
    kind: "invalid event",
    make: (f) => writeFile(f, '{"type":"bogus"}\n'),
    says: ":1 is not a ledger event",
  },
  {
    kind: "empty (kill -9 at run start)",
    make: (f) => writeFile(f, ""),
    says: "does not begin with",
  },
  { kind: "a folder", make: (f) => mkdir(f), says: ".jsonl is a directory" },
  {
    kind: "a FIFO",
    make: (f) => execFileAsync("mkfifo", [f]),
    says: ".jsonl is a named pipe (FIFO)",
  },
  {
    kind: "a bad name",
    make: (f) => writeFile(join(dirname(f), "a b.jsonl"), ""),
    says: '"a b" is not a run id',
  },
];

describe("damaged ledgers", () => {
  it.each(DAMAGED_LEDGERS)(
    "leave out $kind with a line, and undo the other run",
    async (damage) => {
      await put("a.txt", "1\n");
      const runId = await run("one", [{ "a.txt": "2\n" }]);
      // Named to sort after the good run: the latest ledger is the damaged one.
      await damage.make(join(cwd, ".agent", "runs", "zzzz.jsonl"));
      const damaged: string[] = [];
      expect((await listRuns(cwd, damaged)).map((r) => r.runId)).toEqual([runId]);
      expect(damaged).toEqual([expect.stringContaining(damage.says)]);
      expect(damaged[0]).toMatch(/^Left out a damaged ledger: /);
      const result = await undoRun(cwd);
      expect(result.restored).toEqual(["a.txt"]);
      expect(describeUndo(result)).toBe(`Undid run ${runId}: restored a.txt.\n${damaged[0]}`);
      await expect(undoRun(cwd)).rejects.toThrow(damage.says);
    },
  );
});

describe("undo", () => {
  it("restores modified and deleted files, removes added ones, and marks the run", async () => {
    await put("src/a.ts", "a1\n");
    await put("src/gone.ts", "gone\n");
    const runId = await run("edit", [
      { "src/a.ts": "a2\n", "src/new.ts": "new\n" },
      { "src/a.ts": "a3\n", "src/gone.ts": null },
    ]);

    const result = await undoRun(cwd);
    expect(result).toEqual({
      runId,
      restored: ["src/a.ts", "src/gone.ts"],
      removed: ["src/new.ts"],
      alreadyUndone: [],
      damaged: [],
    });
    expect(describeUndo(result)).toBe(
      `Undid run ${runId}: restored src/a.ts, src/gone.ts; removed src/new.ts.`,
    );
    // The bytes from before the run, not from before its last patch.
    expect(await readFile(join(cwd, "src/a.ts"), "utf8")).toBe("a1\n");
    expect(await readFile(join(cwd, "src/gone.ts"), "utf8")).toBe("gone\n");
    expect(await exists("src/new.ts")).toBe(false);
    expect((await RunLedger.load(cwd, runId)).undone).toBe(true);

    await expect(undoRun(cwd)).rejects.toThrow(
      `Nothing to undo: no run recorded in ${join(cwd, ".agent", "runs")} changed files, or all of them were undone already.`,
    );
  });

  it("undoes the latest run by default, and an older one by id", async () => {
    await put("a.txt", "1\n");
    const first = await run("one", [{ "a.txt": "2\n" }]);
    const second = await run("two", [{ "b.txt": "b\n" }]);
    // A run that changed nothing is not a candidate.
    await (await RunLedger.open(cwd, { task: "question", model: "test" })).finish("done");

    expect((await undoRun(cwd)).runId).toBe(second);
    expect(await exists("b.txt")).toBe(false);
    expect(await undoRun(cwd, first)).toMatchObject({ runId: first, restored: ["a.txt"] });
    expect(await readFile(join(cwd, "a.txt"), "utf8")).toBe("1\n");
  });

  it("waits for the lock a patch holds on a file before it checks and restores the file", async () => {
    await put("a.txt", "old\n");
    const runId = await run("edit", [{ "a.txt": "new\n" }]);
    const unlock = await lockFiles(join(cwd, ".agent", "locks"), [join(cwd, "a.txt")]);
    let settled = false;
    const undoing = undoRun(cwd, runId).finally(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(settled).toBe(false);
    expect(await readFile(join(cwd, "a.txt"), "utf8")).toBe("new\n");
    await unlock();
    expect((await undoing).restored).toEqual(["a.txt"]);
    expect(await readFile(join(cwd, "a.txt"), "utf8")).toBe("old\n");
  });

  it("refuses, writing nothing, when a file changed since the run", async () => {
    await put("a.txt", "1\n");
    await put("b.txt", "b\n");
    const runId = await run("edit", [{ "a.txt": "2\n", "b.txt": null, "c.txt": "c\n" }]);
    await put("a.txt", "edited by the user\n");
    await put("b.txt", "back\n");
    await put("c.txt", "user's c\n");

    const refusal = undoRun(cwd, runId);
    await expect(refusal).rejects.toBeInstanceOf(UndoRefusedError);
    await expect(refusal).rejects.toThrow(
      [
        `Cannot undo run ${runId}: 3 files have changed since the run.`,
        `- a.txt: the run left sha256 ${sha256("2\n")}, it is now ${sha256("edited by the user\n")}.`,
        `- b.txt: the run deleted it, but it exists again (sha256 ${sha256("back\n")}).`,
        `- c.txt: the run left sha256 ${sha256("c\n")}, it is now ${sha256("user's c\n")}.`,
        `Nothing was undone. Revert those edits first, or copy the old bytes by hand from ${join(".agent", "backups", runId, "files")}.`,
      ].join("\n"),
    );
    expect(await readFile(join(cwd, "a.txt"), "utf8")).toBe("edited by the user\n");
    expect((await RunLedger.load(cwd, runId)).undone).toBe(false);
  });

  it("keeps the permissions of a restored file", async () => {
    await put("run.sh", "echo 1\n");
    await chmod(join(cwd, "run.sh"), 0o755);
    const runId = await run("edit", [{ "run.sh": "echo 2\n" }]);
    await undoRun(cwd, runId);
    expect(await readFile(join(cwd, "run.sh"), "utf8")).toBe("echo 1\n");
    expect((await stat(join(cwd, "run.sh"))).mode & 0o777).toBe(0o755);
  });

  it("refuses when a file the run left was deleted since", async () => {
    await put("a.txt", "1\n");
    const runId = await run("edit", [{ "a.txt": "2\n" }]);
    await rm(join(cwd, "a.txt"));
    await expect(undoRun(cwd, runId)).rejects.toThrow(
      "- a.txt: the run left it in place, but it has been deleted since.",
    );
  });

  it("skips files already put back, and says so", async () => {
    await put("a.txt", "1\n");
    const runId = await run("edit", [{ "a.txt": "2\n", "b.txt": "b\n" }]);
    await put("a.txt", "1\n");
    const result = await undoRun(cwd, runId);
    expect(result).toEqual({
      runId,
      restored: [],
      removed: ["b.txt"],
      alreadyUndone: ["a.txt"],
      damaged: [],
    });
    expect(describeUndo(result)).toBe(
      `Undid run ${runId}: removed b.txt; already as before: a.txt.`,
    );
  });

  it("says so when every file is already as before, and refuses a run undone already", async () => {
    await put("a.txt", "1\n");
    const runId = await run("edit", [{ "a.txt": "2\n" }]);
    await put("a.txt", "1\n");
    expect(describeUndo(await undoRun(cwd, runId))).toBe(
      `Nothing to undo in run ${runId}: a.txt is already as before the run.`,
    );
    // The file is the user's again: a second undo must not call their edit a conflict.
    await put("a.txt", "the user's next edit\n");
    const undone = (await RunLedger.load(cwd, runId)).events().at(-1)?.time;
    await expect(undoRun(cwd, runId)).rejects.toThrow(
      `Run ${runId} was undone already (${undone}); there is nothing left to undo.`,
    );
  });

  it("explains an unknown run id and a run without changes", async () => {
    await expect(undoRun(cwd, "20990101-000000-abcdef")).rejects.toThrow(
      `Cannot undo run 20990101-000000-abcdef: ${join(cwd, ".agent", "backups", "20990101-000000-abcdef", "manifest.json")} is missing or unreadable, so there are no backups to restore from. Check the run id (the files in .agent/runs/ are named after them).`,
    );
    await expect(undoRun(cwd, "../../etc")).rejects.toThrow(
      '"../../etc" is not a run id. Run ids look like 20250131-142501-3f9a1c.',
    );
    await expect(undoRun(cwd)).rejects.toThrow(/^Nothing to undo: no run recorded in /);

    await put("a.txt", "1\n");
    const runId = await run("there and back", [{ "a.txt": "2\n" }, { "a.txt": "1\n" }]);
    await expect(undoRun(cwd, runId)).rejects.toThrow(
      `Nothing to undo: run ${runId} left every file as it found it.`,
    );
  });

  it("refuses a manifest that is not one, in one line naming the file", async () => {
    const runId = "20250131-142501-3f9a1c";
    const manifest = join(cwd, ".agent", "backups", runId, "manifest.json");
    await mkdir(dirname(manifest), { recursive: true });
    for (const [text, issue] of [
      ["{}", "patches: Invalid input: expected array, received undefined"],
      ["null", "(root): Invalid input: expected object, received null"],
      ['{"patches":"x"}', "patches: Invalid input: expected array, received string"],
    ]) {
      await writeFile(manifest, text);
      await expect(undoRun(cwd, runId)).rejects.toThrow(
        new UndoRefusedError(
          `Cannot undo run ${runId}: ${manifest} is not a backup manifest (${issue}). Nothing was undone.`,
        ),
      );
    }
  });

  it("never writes into .git/ or .agent/, whatever a manifest names: it leaves those out", async () => {
    await put("a.txt", "1\n");
    const runId = await run("edit", [{ "a.txt": "2\n" }]);
    const manifest = join(cwd, ".agent", "backups", runId, "manifest.json");
    const shipped = JSON.parse(await readFile(manifest, "utf8")) as {
      patches: Array<{ files: unknown[] }>;
    };
    const paths = [".git/hooks/pre-commit", "./.GIT/config", "a/../.agent/runs/x.jsonl"];
    for (const path of paths) {
      shipped.patches[0]?.files.push({ path, previous_sha256: null, backup: null, sha256: "x" });
    }
    await writeFile(manifest, JSON.stringify(shipped));
    const result = await undoRun(cwd, runId);
    expect(result.restored).toEqual(["a.txt"]);
    expect(result.damaged).toEqual(
      [".git/hooks/pre-commit", ".GIT/config", ".agent/runs/x.jsonl"].map(
        (path) => `Left out ${path}: undo never writes in .git/ or .agent/ (hooks run code).`,
      ),
    );
    expect(await exists(".git")).toBe(false);
  });

  it("restores permission bits only, never setuid, setgid or sticky", async () => {
    await put("run.sh", "echo 1\n");
    const runId = await run("edit", [{ "run.sh": "echo 2\n" }]);
    await chmod(join(cwd, "run.sh"), 0o7755);
    await undoRun(cwd, runId);
    expect((await stat(join(cwd, "run.sh"))).mode & 0o7777).toBe(0o755);
  });

  it("refuses a backup that does not hold the old bytes", async () => {
    await put("a.txt", "1\n");
    const runId = await run("edit", [{ "a.txt": "2\n" }]);
    const backup = join(cwd, ".agent", "backups", runId, "files", "a.txt");
    await writeFile(backup, "tampered\n");
    await expect(undoRun(cwd, runId)).rejects.toThrow(
      `- a.txt: its backup ${backup} is missing or does not hold the old bytes (sha256 ${sha256("1\n")}).`,
    );
    expect(await readFile(join(cwd, "a.txt"), "utf8")).toBe("2\n");
  });
});
