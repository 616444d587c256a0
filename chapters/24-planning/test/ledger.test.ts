import { mkdtemp, readFile, appendFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RunLedger, listRuns, normalizePath } from "../src/ledger/run-ledger.ts";
import { newRunId } from "../src/fs/run-id.ts";

const A = "a".repeat(64);
const B = "b".repeat(64);
const C = "c".repeat(64);
const D = "d".repeat(64);

let cwd: string;
beforeEach(async () => {
  cwd = await mkdtemp(join(tmpdir(), "ledger-"));
});
afterEach(async () => {
  await rm(cwd, { recursive: true, force: true });
});

async function fileLines(ledger: RunLedger): Promise<unknown[]> {
  const text = await readFile(ledger.path, "utf8");
  return text
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as unknown);
}

describe("RunLedger", () => {
  it("appends one JSON line per event, in order, as they happen", async () => {
    const ledger = await RunLedger.open(cwd, { task: "fix the bug", model: "offline" });
    expect(ledger.path).toBe(join(cwd, ".agent", "runs", `${ledger.runId}.jsonl`));
    expect(ledger.runId).toMatch(/^\d{8}-\d{6}-[0-9a-f]{6}$/);

    await ledger.recordRead("src/a.ts", A, { full: true });
    // Flushed at once, not at the end of the run.
    expect(await fileLines(ledger)).toHaveLength(2);

    await ledger.recordToolCall({ tool: "read_file", callId: "call_1", outcome: "ok" });
    await ledger.recordWrite("src/a.ts", { before: A, after: B });
    await ledger.recordToolCall({
      tool: "apply_patch",
      callId: "call_2",
      outcome: "error",
      code: "file_changed",
    });
    await ledger.recordModelCall({
      model: "offline",
      usage: { input_tokens: 100, output_tokens: 20 },
    });
    await ledger.finish("done");

    const time = expect.any(String);
    expect(await fileLines(ledger)).toEqual([
      { type: "run_start", time, run_id: ledger.runId, task: "fix the bug", model: "offline", cwd },
      { type: "file_read", time, path: "src/a.ts", sha256: A, full: true },
      { type: "tool_call", time, tool: "read_file", call_id: "call_1", outcome: "ok" },
      {
        type: "file_written",
        time,
        path: "src/a.ts",
        before_sha256: A,
        after_sha256: B,
        revision: 1,
      },
      {
        type: "tool_call",
        time,
        tool: "apply_patch",
        call_id: "call_2",
        outcome: "error",
        code: "file_changed",
      },
      {
        type: "model_call",
        time,
        model: "offline",
        usage: { input_tokens: 100, output_tokens: 20 },
      },
      { type: "run_end", time, reason: "done" },
    ]);
  });

  it("answers changed files, revision, usage and tool calls from memory", async () => {
    const ledger = await RunLedger.open(cwd, { task: "t", model: "m" });
    await ledger.recordWrite("src/a.ts", { before: A, after: B });
    await ledger.recordWrite("src/a.ts", { before: B, after: C });
    await ledger.recordWrite("new.ts", { after: D });
    await ledger.recordWrite("old.ts", { before: A });
    // Written and put back: not a change.
    await ledger.recordWrite("same.ts", { before: A, after: B });
    await ledger.recordWrite("same.ts", { before: B, after: A });
    // Added then deleted: not a change either.
    await ledger.recordWrite("tmp.ts", { after: A });
    await ledger.recordWrite("tmp.ts", { before: A });
    await ledger.recordModelCall({ model: "m", usage: { input_tokens: 10, output_tokens: 5 } });
    await ledger.recordModelCall({ model: "m", usage: { input_tokens: 7, output_tokens: 1 } });
    // A server that does not report usage: counted, but not as zero tokens.
    await ledger.recordModelCall({ model: "m", usage: null });
    await ledger.recordToolCall({ tool: "note", outcome: "ok" });

    expect(ledger.revision).toBe(8);
    expect(ledger.changedFiles()).toEqual([
      { path: "src/a.ts", status: "modified", before_sha256: A, after_sha256: C },
      { path: "new.ts", status: "added", before_sha256: undefined, after_sha256: D },
      { path: "old.ts", status: "deleted", before_sha256: A, after_sha256: undefined },
    ]);
    expect(ledger.usage()).toEqual({
      model_calls: 3,
      unreported_calls: 1,
      input_tokens: 17,
      output_tokens: 6,
      total_tokens: 23,
    });
    expect(ledger.toolCalls()).toEqual([
      { tool: "note", callId: undefined, outcome: "ok", code: undefined },
    ]);
    await ledger.close();
  });

  it("refuses events after the run ended and malformed hashes", async () => {
    const ledger = await RunLedger.open(cwd, { task: "t", model: "m" });
    await expect(ledger.recordRead("a.ts", "ABC", { full: true })).rejects.toThrow(
      "expected a lowercase hex SHA-256",
    );
    await ledger.finish("done");
    await expect(ledger.recordRead("a.ts", A, { full: true })).rejects.toThrow(
      `Run ${ledger.runId} has ended; it cannot record file_read.`,
    );
  });
});

describe("the plan", () => {
  it("is the latest plan event, also replayed from the file; reminders are recorded beside it", async () => {
    const ledger = await RunLedger.open(cwd, { task: "plan me", model: "m" });
    expect(ledger.plan()).toBeUndefined();
    await ledger.recordPlan([{ step: "Fix total()", status: "in_progress" }]);
    await ledger.recordPlanReminder(["Fix total()"]);
    const last = [{ step: "Fix total()", status: "done" as const }];
    await ledger.recordPlan(last);
    await ledger.finish("done");

    expect(ledger.plan()).toEqual(last);
    const lines = await fileLines(ledger);
    expect(lines[2]).toMatchObject({ type: "plan_reminder", open: ["Fix total()"] });
    expect((await RunLedger.load(cwd, ledger.runId)).plan()).toEqual(last);
  });
});

describe("lastKnownHash", () => {
  it("is the last full read or the agent's own last write", async () => {
    const ledger = await RunLedger.open(cwd, { task: "t", model: "m" });
    expect(ledger.lastKnownHash("src/a.ts")).toBeUndefined();

    await ledger.recordRead("src/a.ts", A, { full: true });
    expect(ledger.lastKnownHash("src/a.ts")).toBe(A);

    // The agent's own write counts as a read.
    await ledger.recordWrite("src/a.ts", { before: A, after: B });
    expect(ledger.lastKnownHash("src/a.ts")).toBe(B);

    // A later full read (the file changed under us) replaces it.
    await ledger.recordRead("src/a.ts", C, { full: true });
    expect(ledger.lastKnownHash("src/a.ts")).toBe(C);
    await ledger.close();
  });

  it("ignores partial reads: a range does not show the whole file", async () => {
    const ledger = await RunLedger.open(cwd, { task: "t", model: "m" });
    await ledger.recordRead("b.ts", A, { full: false });
    expect(ledger.lastKnownHash("b.ts")).toBeUndefined();

    await ledger.recordRead("b.ts", A, { full: true });
    await ledger.recordRead("b.ts", B, { full: false });
    // Still A: the guard will then report file_changed, which is the truth.
    expect(ledger.lastKnownHash("b.ts")).toBe(A);
    await ledger.close();
  });

  it("forgets a file the agent deleted, and knows a file it created", async () => {
    const ledger = await RunLedger.open(cwd, { task: "t", model: "m" });
    await ledger.recordRead("old.ts", A, { full: true });
    await ledger.recordWrite("old.ts", { before: A });
    expect(ledger.lastKnownHash("old.ts")).toBeUndefined();

    await ledger.recordWrite("new.ts", { after: D });
    expect(ledger.lastKnownHash("new.ts")).toBe(D);
    await ledger.close();
  });

  it("treats differently spelled paths to one file as the same key", async () => {
    const ledger = await RunLedger.open(cwd, { task: "t", model: "m" });
    await ledger.recordRead("./src/a.ts", A, { full: true });
    expect(ledger.lastKnownHash("src/a.ts")).toBe(A);
    expect(ledger.lastKnownHash("src\\a.ts")).toBe(A);
    expect(normalizePath("src/./lib/../a.ts")).toBe("src/a.ts");
    await ledger.close();
  });
});

describe("replay", () => {
  async function sampleRun(): Promise<RunLedger> {
    const ledger = await RunLedger.open(cwd, { task: "replay me", model: "m" });
    await ledger.recordRead("a.ts", A, { full: true });
    await ledger.recordWrite("a.ts", { before: A, after: B });
    await ledger.recordModelCall({ model: "m", usage: { input_tokens: 3, output_tokens: 4 } });
    return ledger;
  }

  it("rebuilds the same answers from the file", async () => {
    const live = await sampleRun();
    await live.finish("done");
    const loaded = await RunLedger.load(cwd, live.runId);
    expect(loaded.events()).toEqual(live.events());
    expect(loaded.lastKnownHash("a.ts")).toBe(B);
    expect(loaded.changedFiles()).toEqual(live.changedFiles());
    expect(loaded.revision).toBe(1);
    expect(loaded.usage()).toEqual(live.usage());
    expect(loaded.end?.reason).toBe("done");
    expect(loaded.tornTail).toBe(false);
  });

  it("tolerates a torn last line left by a crash, and appends after it cleanly", async () => {
    const live = await sampleRun();
    await live.close(); // the process "crashes": no run_end
    await appendFile(live.path, '{"type":"file_written","time":"2025-01-0');

    const loaded = await RunLedger.load(cwd, live.runId);
    expect(loaded.tornTail).toBe(true);
    expect(loaded.events()).toEqual(live.events());
    expect(loaded.end).toBeUndefined();
    expect(loaded.changedFiles()).toEqual([
      { path: "a.ts", status: "modified", before_sha256: A, after_sha256: B },
    ]);

    await loaded.markUndone(["a.ts"]);
    await loaded.close();
    const again = await RunLedger.load(cwd, live.runId);
    expect(again.tornTail).toBe(false);
    expect(again.undone).toBe(true);
  });

  it("fails with the line number when a middle line is corrupt", async () => {
    const live = await sampleRun();
    await live.close();
    const lines = (await readFile(live.path, "utf8")).split("\n");
    lines[1] = "{not json";
    await writeFile(live.path, lines.join("\n"));
    await expect(RunLedger.load(cwd, live.runId)).rejects.toThrow(
      `${live.path}:2 is not valid JSON; the file is corrupt. Move it aside to continue.`,
    );
  });

  it("names what to do for an unknown or malformed run id", async () => {
    await expect(RunLedger.load(cwd, "20990101-000000-abcdef")).rejects.toThrow(
      `No run "20990101-000000-abcdef" in ${join(cwd, ".agent", "runs")}. List the runs there and pass one of their ids.`,
    );
    await expect(RunLedger.load(cwd, "../x")).rejects.toThrow(
      '"../x" is not a run id. Run ids look like 20250131-142501-3f9a1c.',
    );
  });
});

describe("run ids", () => {
  it("come from one place: the time to the second (UTC) and 24 random bits", () => {
    // apply_patch names its backup folder with the same function, so a run has one id.
    const id = newRunId(new Date("2025-01-31T14:25:01.999Z"));
    expect(id).toMatch(/^20250131-142501-[0-9a-f]{6}$/);
    expect(newRunId(new Date("2025-01-31T14:25:01.999Z"))).not.toBe(id);
  });
});

describe("listRuns", () => {
  it("is empty in a fresh workspace and lists runs oldest first", async () => {
    expect(await listRuns(cwd)).toEqual([]);
    const first = await RunLedger.open(cwd, { task: "one", model: "m" });
    await first.recordWrite("a.ts", { after: A });
    await first.finish("done");
    const second = await RunLedger.open(cwd, { task: "two", model: "m" });
    await second.close();

    const runs = await listRuns(cwd);
    expect(
      runs.map((run) => [run.runId, run.task, run.endReason, run.changedFiles.length, run.undone]),
    ).toEqual([
      [first.runId, "one", "done", 1, false],
      [second.runId, "two", undefined, 0, false],
    ]);
  });
});
