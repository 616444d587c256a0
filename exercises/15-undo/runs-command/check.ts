// Exercise "`runs` subcommand": `pnpm chapter 15 -- runs --repo PATH` prints the workspace's runs,
// one line each, newest first, with the run id, "undone" for an undone run, the number of files
// it changed and its task.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

interface Ledger {
  readonly runId: string;
  recordWrite(path: string, hashes: { before?: string; after?: string }): Promise<void>;
  markUndone(files: string[]): Promise<void>;
  finish(reason: string): Promise<void>;
  close(): Promise<void>;
}

interface LedgerModule {
  RunLedger: {
    open(cwd: string, info: { task: string; model: string }): Promise<Ledger>;
    load(cwd: string, runId: string): Promise<Ledger>;
  };
}

interface Main {
  main(argv: string[]): Promise<number>;
}

const A = "a".repeat(64);
const B = "b".repeat(64);

/** Runs `fn` with stdout and stderr captured; the model settings are made invalid on purpose. */
async function captured(fn: () => Promise<number>): Promise<{ code: number; out: string }> {
  let out = "";
  const stdout = process.stdout.write.bind(process.stdout);
  const stderr = process.stderr.write.bind(process.stderr);
  const baseURL = process.env.OPENAI_BASE_URL;
  // If "runs" were taken as a task, main would fail at once on this setting instead of calling a model.
  process.env.OPENAI_BASE_URL = "not-a-url";
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
    if (baseURL === undefined) delete process.env.OPENAI_BASE_URL;
    else process.env.OPENAI_BASE_URL = baseURL;
  }
}

const pause = () => new Promise((resolve) => setTimeout(resolve, 5));

export default async function check(chapterDir: string): Promise<void> {
  const { RunLedger } = (await import(
    pathToFileURL(join(chapterDir, "src/ledger/run-ledger.ts")).href
  )) as LedgerModule;
  const { main } = (await import(pathToFileURL(join(chapterDir, "src/main.ts")).href)) as Main;
  const workspace = await mkdtemp(join(tmpdir(), "runs-command-"));
  try {
    // Oldest first: a run that changed one file and was undone, a question, a run that changed two.
    const fixed = await RunLedger.open(workspace, { task: "fix the coupon", model: "m" });
    await fixed.recordWrite("src/cart.mjs", { before: A, after: B });
    await fixed.finish("done");
    // What undo does after it has put the file back.
    const replayed = await RunLedger.load(workspace, fixed.runId);
    await replayed.markUndone(["src/cart.mjs"]);
    await replayed.close();
    await pause();
    const question = await RunLedger.open(workspace, { task: "what does total do?", model: "m" });
    await question.finish("done");
    await pause();
    const two = await RunLedger.open(workspace, { task: "rename the helper", model: "m" });
    await two.recordWrite("a.ts", { before: A, after: B });
    await two.recordWrite("b.ts", { after: A });
    await two.finish("done");

    const { code, out } = await captured(() => main(["runs", "--repo", workspace]));
    assert.equal(
      code,
      0,
      `"runs --repo DIR" should list the runs and exit 0 (got ${code}): is "runs" still taken as a task? It printed:\n${out}`,
    );
    const lines = out.trimEnd().split("\n");
    assert.equal(
      lines.length,
      3,
      `"runs" should print one line per run (3 runs); it printed:\n${out}`,
    );
    const order = [two, question, fixed].map((run) => run.runId);
    lines.forEach((line, i) =>
      assert.ok(
        line.includes(order[i]!),
        `line ${i + 1} should be run ${order[i]} (newest first); got: ${line}`,
      ),
    );
    assert.match(lines[0]!, /rename the helper/, "each line should show the run's task");
    assert.match(lines[0]!, /\b2\b/, "the newest run changed 2 files: its line should say 2");
    assert.match(lines[2]!, /\bundone\b/, "the undone run's line should say undone");
    assert.match(lines[2]!, /\b1\b/, "the undone run changed 1 file: its line should say 1");
    assert.doesNotMatch(lines[0]!, /undone/, "a run that was not undone must not say undone");
    assert.doesNotMatch(lines[1]!, /undone/, "a run that was not undone must not say undone");
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}
