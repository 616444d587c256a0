// Exercise "Undo one file": undoRun(cwd, runId, { only: [...] }) puts back only the files named;
// a later undo of the same run puts back the rest, without calling the files undone earlier
// conflicts; a file is undone once; and `undo --file PATH` does it from the command line.
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

interface UndoResult {
  runId: string;
  restored: string[];
  removed: string[];
  alreadyUndone: string[];
}

interface UndoModule {
  undoRun(cwd: string, runId?: string, options?: { only?: string[] }): Promise<UndoResult>;
  UndoRefusedError: new (message: string) => Error;
}

interface Ledger {
  readonly runId: string;
  readonly undone: boolean;
  recordWrite(path: string, hashes: { before?: string; after?: string }): Promise<void>;
  finish(reason: string): Promise<void>;
}

interface LedgerModule {
  RunLedger: {
    open(cwd: string, info: { task: string; model: string }): Promise<Ledger>;
    load(cwd: string, runId: string): Promise<Ledger>;
  };
  listRuns(cwd: string): Promise<Array<{ runId: string; undone: boolean }>>;
}

interface BackupRecord {
  path: string;
  previous_sha256: string | null;
  backup: string | null;
  sha256: string | null;
}

interface BackupsModule {
  backUpFile(backupDir: string, relative: string, bytes: Uint8Array): Promise<string>;
  recordInManifest(backupDir: string, runId: string, files: BackupRecord[]): Promise<void>;
}

interface HashModule {
  sha256(bytes: Uint8Array | string): string;
}

interface Main {
  main(argv: string[]): Promise<number>;
}

async function load<T>(chapterDir: string, path: string): Promise<T> {
  return (await import(pathToFileURL(join(chapterDir, path)).href)) as T;
}

/** Runs `fn` with stdout and stderr silenced. */
async function quietly(fn: () => Promise<number>): Promise<number> {
  const stdout = process.stdout.write.bind(process.stdout);
  const stderr = process.stderr.write.bind(process.stderr);
  process.stdout.write = (() => true) as typeof process.stdout.write;
  process.stderr.write = (() => true) as typeof process.stderr.write;
  try {
    return await fn();
  } finally {
    process.stdout.write = stdout;
    process.stderr.write = stderr;
  }
}

export default async function check(chapterDir: string): Promise<void> {
  const undo = await load<UndoModule>(chapterDir, "src/ledger/undo.ts");
  const { RunLedger, listRuns } = await load<LedgerModule>(chapterDir, "src/ledger/run-ledger.ts");
  const backups = await load<BackupsModule>(chapterDir, "src/patch/backups.ts");
  const { sha256 } = await load<HashModule>(chapterDir, "src/fs/file-hash.ts");
  const { main } = await load<Main>(chapterDir, "src/main.ts");
  const cwd = await mkdtemp(join(tmpdir(), "undo-one-file-"));
  const read = (path: string) => readFile(join(cwd, path), "utf8");
  try {
    // One run, as the harness and apply_patch record it: a.txt and b.txt modified, c.txt created.
    await writeFile(join(cwd, "a.txt"), "a1\n");
    await writeFile(join(cwd, "b.txt"), "b1\n");
    const ledger = await RunLedger.open(cwd, { task: "edit", model: "test" });
    const backupDir = join(cwd, ".agent", "backups", ledger.runId);
    const records: BackupRecord[] = [];
    for (const [path, before, after] of [
      ["a.txt", "a1\n", "a2\n"],
      ["b.txt", "b1\n", "b2\n"],
      ["c.txt", null, "c\n"],
    ] as const) {
      const backup =
        before === null ? null : await backups.backUpFile(backupDir, path, Buffer.from(before));
      await writeFile(join(cwd, path), after);
      records.push({
        path,
        previous_sha256: before === null ? null : sha256(before),
        backup,
        sha256: sha256(after),
      });
      await ledger.recordWrite(path, {
        before: before === null ? undefined : sha256(before),
        after: sha256(after),
      });
    }
    await backups.recordInManifest(backupDir, ledger.runId, records);
    await ledger.finish("done");
    const runId = ledger.runId;

    const first = await undo.undoRun(cwd, runId, { only: ["a.txt"] });
    assert.deepEqual(
      [first.restored, first.removed],
      [["a.txt"], []],
      `undoRun(cwd, runId, { only: ["a.txt"] }) should restore a.txt and nothing else; got ${JSON.stringify(first)}`,
    );
    assert.equal(await read("a.txt"), "a1\n", "a.txt should hold its bytes from before the run");
    assert.equal(
      await read("b.txt"),
      "b2\n",
      "b.txt was not named: it must keep what the run left",
    );
    assert.equal(await read("c.txt"), "c\n", "c.txt was not named: it must stay");
    assert.equal(
      (await RunLedger.load(cwd, runId)).undone,
      false,
      "a run with files left to undo is not undone",
    );
    assert.equal(
      (await listRuns(cwd)).find((run) => run.runId === runId)?.undone,
      false,
      "listRuns should not call a partly undone run undone",
    );

    await assert.rejects(
      undo.undoRun(cwd, runId, { only: ["a.txt"] }),
      undo.UndoRefusedError,
      "a.txt was undone already: undoing it again should be refused",
    );
    await assert.rejects(
      undo.undoRun(cwd, runId, { only: ["nope.txt"] }),
      (error: Error) =>
        error instanceof undo.UndoRefusedError && error.message.includes("nope.txt"),
      "a file the run did not change should be refused, naming it",
    );

    // a.txt is the user's again: their edit must not block undoing the rest of the run.
    await writeFile(join(cwd, "a.txt"), "the user's next edit\n");
    const exit = await quietly(() => main(["undo", runId, "--repo", cwd, "--file", "b.txt"]));
    assert.equal(exit, 0, `"undo RUN_ID --repo DIR --file b.txt" should exit 0 (got ${exit})`);
    assert.equal(await read("b.txt"), "b1\n", "undo --file b.txt should restore b.txt");
    assert.equal(await read("c.txt"), "c\n", "undo --file b.txt must leave c.txt alone");

    // No id: the latest run that still has files to undo, which is this one.
    const rest = await undo.undoRun(cwd);
    assert.deepEqual(
      [rest.runId, rest.restored, rest.removed],
      [runId, [], ["c.txt"]],
      `undo without an id should take back what is left of the run, c.txt; got ${JSON.stringify(rest)}`,
    );
    assert.equal(
      await read("a.txt"),
      "the user's next edit\n",
      "a.txt was undone earlier: keep it",
    );
    assert.equal((await RunLedger.load(cwd, runId)).undone, true, "every file is back: undone");
    await assert.rejects(undo.undoRun(cwd, runId), undo.UndoRefusedError);
  } finally {
    await rm(cwd, { recursive: true, force: true });
  }
}
