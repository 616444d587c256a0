// Exercise "A second writer": RunLedger.open(cwd, info, runId) opens the ledger of a given run,
// and a second ledger for a run that already has one is refused with a message naming the run and
// its file, while the first run's ledger stays one history.
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

interface Ledger {
  readonly runId: string;
  readonly path: string;
  finish(reason: string): Promise<void>;
  close(): Promise<void>;
}
interface LedgerModule {
  RunLedger: {
    open(cwd: string, info: { task: string; model: string }, runId?: string): Promise<Ledger>;
  };
}

const RUN_ID = "20250131-142501-3f9a1c";

export default async function check(chapterDir: string): Promise<void> {
  const { RunLedger } = (await import(
    pathToFileURL(join(chapterDir, "src/ledger/run-ledger.ts")).href
  )) as LedgerModule;
  const cwd = await mkdtemp(join(tmpdir(), "second-writer-"));
  const opened: Ledger[] = [];
  try {
    const first = await RunLedger.open(cwd, { task: "first", model: "m" }, RUN_ID);
    opened.push(first);
    assert.equal(first.runId, RUN_ID, "open(cwd, info, runId) should use the run id it is given");

    let refusal: unknown;
    try {
      opened.push(await RunLedger.open(cwd, { task: "second", model: "m" }, RUN_ID));
    } catch (error) {
      refusal = error;
    }
    assert.ok(
      refusal instanceof Error,
      "a second ledger for a run that already has one must be refused",
    );
    assert.match(refusal.message, new RegExp(RUN_ID), "the refusal should name the run");
    assert.ok(
      refusal.message.includes(first.path),
      `the refusal should name the ledger's file (${first.path}), not only say EEXIST`,
    );

    await first.finish("done");
    const lines = (await readFile(first.path, "utf8")).trimEnd().split("\n");
    assert.deepEqual(
      lines.map((line) => (JSON.parse(line) as { type: string }).type),
      ["run_start", "run_end"],
      "the first run's ledger must hold only its own history",
    );
    assert.match(lines[0]!, /"task":"first"/);
  } finally {
    await Promise.all(opened.map((ledger) => ledger.close()));
    await rm(cwd, { recursive: true, force: true });
  }
}
