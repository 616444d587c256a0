// Exercise "Look before you undo": undoRun(cwd, runId, { dryRun: true }) reports what an undo
// would do, or refuses as an undo would, but writes nothing and does not mark the run; and
// `undo --dry-run` on the command line does the same.
import assert from "node:assert/strict";
import { access, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
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
  undoRun(cwd: string, runId?: string, options?: { dryRun?: boolean }): Promise<UndoResult>;
  describeUndo(result: UndoResult): string;
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

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/** Runs `fn` with stdout captured and stderr silenced. */
async function captured(fn: () => Promise<number>): Promise<{ code: number; out: string }> {
  let out = "";
  const stdout = process.stdout.write.bind(process.stdout);
  const stderr = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((chunk: string | Uint8Array) => {
    out += chunk.toString();
    return true;
  }) as typeof process.stdout.write;
  process.stderr.write = (() => true) as typeof process.stderr.write;
  try {
    return { code: await fn(), out };
  } finally {
    process.stdout.write = stdout;
    process.stderr.write = stderr;
  }
}

export default async function check(chapterDir: string): Promise<void> {
  const undo = await load<UndoModule>(chapterDir, "src/ledger/undo.ts");
  const { RunLedger } = await load<LedgerModule>(chapterDir, "src/ledger/run-ledger.ts");
  const backups = await load<BackupsModule>(chapterDir, "src/patch/backups.ts");
  const { sha256 } = await load<HashModule>(chapterDir, "src/fs/file-hash.ts");
  const { main } = await load<Main>(chapterDir, "src/main.ts");
  const cwd = await mkdtemp(join(tmpdir(), "undo-dry-run-"));
  try {
    // One run, as the harness and apply_patch record it: a.txt modified, new.txt created.
    await writeFile(join(cwd, "a.txt"), "1\n");
    const ledger = await RunLedger.open(cwd, { task: "edit", model: "test" });
    const backupDir = join(cwd, ".agent", "backups", ledger.runId);
    const backup = await backups.backUpFile(backupDir, "a.txt", Buffer.from("1\n"));
    await writeFile(join(cwd, "a.txt"), "2\n");
    await writeFile(join(cwd, "new.txt"), "new\n");
    await backups.recordInManifest(backupDir, ledger.runId, [
      { path: "a.txt", previous_sha256: sha256("1\n"), backup, sha256: sha256("2\n") },
      { path: "new.txt", previous_sha256: null, backup: null, sha256: sha256("new\n") },
    ]);
    await ledger.recordWrite("a.txt", { before: sha256("1\n"), after: sha256("2\n") });
    await ledger.recordWrite("new.txt", { after: sha256("new\n") });
    await ledger.finish("done");
    const runId = ledger.runId;

    const planned = await undo.undoRun(cwd, runId, { dryRun: true });
    assert.deepEqual(
      [planned.restored, planned.removed, planned.alreadyUndone],
      [["a.txt"], ["new.txt"], []],
      "a dry run should report what an undo would do: restore a.txt, remove new.txt",
    );
    assert.equal(
      await readFile(join(cwd, "a.txt"), "utf8"),
      "2\n",
      "a dry run must not restore anything: a.txt was written",
    );
    assert.ok(await exists(join(cwd, "new.txt")), "a dry run must not remove anything");
    assert.equal(
      (await RunLedger.load(cwd, runId)).undone,
      false,
      "a dry run must not mark the run undone, or the real undo would be refused",
    );
    const line = undo.describeUndo(planned);
    assert.doesNotMatch(line, /^Undid/, `a dry run's line must not say "Undid": ${line}`);
    assert.match(line, /would/i, `a dry run's line should say what undo would do: ${line}`);

    // The command line: `undo RUN_ID --dry-run` prints the plan and changes nothing.
    const run = await captured(() => main(["undo", runId, "--dry-run", "--repo", cwd]));
    assert.equal(run.code, 0, `"undo RUN_ID --dry-run --repo DIR" should exit 0 (got ${run.code})`);
    assert.match(
      run.out,
      /would/i,
      `"undo --dry-run" should print the plan; it printed: ${run.out}`,
    );
    assert.equal(await readFile(join(cwd, "a.txt"), "utf8"), "2\n", "undo --dry-run wrote a.txt");

    // A conflict is refused in a dry run too, and a later real undo still works.
    await writeFile(join(cwd, "new.txt"), "the user's edit\n");
    await assert.rejects(
      undo.undoRun(cwd, runId, { dryRun: true }),
      undo.UndoRefusedError,
      "a dry run should refuse a conflict exactly as an undo would",
    );
    await writeFile(join(cwd, "new.txt"), "new\n");
    const done = await undo.undoRun(cwd, runId);
    assert.deepEqual(done.restored, ["a.txt"], "after a dry run, the real undo should still work");
    assert.equal(await readFile(join(cwd, "a.txt"), "utf8"), "1\n");
  } finally {
    await rm(cwd, { recursive: true, force: true });
  }
}
