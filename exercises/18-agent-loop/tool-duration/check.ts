// Exercise "How long did each tool take?": the tool runner measures every call, the ledger's
// tool_call event records it as duration_ms, and the line on the screen ends with "N ms".
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

interface Call {
  id: string;
  function: { name: string; arguments: string };
}
interface Result {
  tool_call_id: string;
  ok: boolean;
  content: string;
}
interface Ledger {
  readonly path: string;
  close(): Promise<void>;
}
interface LedgerModule {
  RunLedger: { open(cwd: string, info: { task: string; model: string }): Promise<Ledger> };
}
interface NotesModule {
  NoteStore: new (cwd: string) => object;
}
interface RunnerModule {
  createToolRunner(options: {
    tools: readonly unknown[];
    cwd: string;
    ledger: Ledger;
    notes: object;
  }): (call: Call, signal: AbortSignal) => Promise<Result>;
}
interface UiModule {
  TerminalUi: new (
    out: { write(text: string): unknown },
    err: { write(text: string): unknown },
  ) => { toolCall(call: Call, result: Result): void };
}

const SLEEP_MS = 40;

// A tool that takes a while. runToolCall needs only its name, a schema with safeParse, and
// execute, so no zod is needed here.
const slowTool = {
  name: "slow_read",
  description: "Takes a while.",
  effect: "read",
  schema: { safeParse: (value: unknown) => ({ success: true, data: value }) },
  execute: async () => {
    await new Promise((resolve) => setTimeout(resolve, SLEEP_MS));
    return { ok: true, content: "done" };
  },
};

export default async function check(chapterDir: string): Promise<void> {
  const load = async <T>(path: string) =>
    (await import(pathToFileURL(join(chapterDir, "src", path)).href)) as T;
  const { RunLedger } = await load<LedgerModule>("ledger/run-ledger.ts");
  const { NoteStore } = await load<NotesModule>("notes/note-store.ts");
  const { createToolRunner } = await load<RunnerModule>("loop/tool-runner.ts");
  const { TerminalUi } = await load<UiModule>("loop/terminal-ui.ts");

  const workspace = await mkdtemp(join(tmpdir(), "tool-duration-"));
  try {
    const ledger = await RunLedger.open(workspace, { task: "time a tool", model: "none" });
    const run = createToolRunner({
      tools: [slowTool],
      cwd: workspace,
      ledger,
      notes: new NoteStore(workspace),
    });
    const call: Call = { id: "call_slow", function: { name: "slow_read", arguments: "{}" } };
    const result = await run(call, new AbortController().signal);
    await ledger.close();
    assert.equal(result.ok, true, `the slow tool should work: ${result.content}`);

    const events = (await readFile(ledger.path, "utf8"))
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const toolCall = events.find((event) => event.type === "tool_call");
    assert.ok(toolCall, "the runner should still record a tool_call event");
    const duration = toolCall.duration_ms;
    assert.equal(
      typeof duration,
      "number",
      `the tool_call event should have duration_ms (a number); it has: ${Object.keys(toolCall).join(", ")}. ` +
        "Add it to ToolCallEvent in ledger-events.ts too: the ledger validates every event it writes",
    );
    assert.ok(
      Number.isInteger(duration) && (duration as number) >= SLEEP_MS - 5,
      `a tool that sleeps ${SLEEP_MS} ms took ${String(duration)}: measure around the whole call, in whole milliseconds`,
    );

    let out = "";
    const ui = new TerminalUi({ write: (text: string) => (out += text) }, { write: () => true });
    ui.toolCall(call, result);
    assert.match(
      out,
      /→ slow_read.* \d+ ms\n$/,
      `the line on the screen should end with the time, "→ slow_read  ok  42 ms"; it is: ${out}`,
    );
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}
