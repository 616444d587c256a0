import { describe, expect, it } from "vitest";
import { runToolBatch } from "../src/loop/tool-batch.ts";
import type { ToolEffect } from "../src/tools/define-tool.ts";
import type { ToolCallRequest, ToolCallResult } from "../src/tools/run-tool-call.ts";

const call = (id: string, name: string): ToolCallRequest => ({
  id,
  function: { name, arguments: "{}" },
});
const effects: Record<string, ToolEffect> = { read_file: "read", apply_patch: "write" };
const effectOf = (name: string) => effects[name];

/** A fake tool runner that logs when each call starts and ends. */
function recorder() {
  const log: string[] = [];
  const run = async (c: ToolCallRequest): Promise<ToolCallResult> => {
    log.push(`start ${c.id}`);
    // Yield once: every call that may run now gets to start before any ends.
    await new Promise<void>((resolve) => setImmediate(resolve));
    log.push(`end ${c.id}`);
    return { tool_call_id: c.id, content: `result ${c.id}`, ok: true };
  };
  return { log, run };
}

describe("runToolBatch", () => {
  it("runs reads in parallel and writes one at a time, answering in the model's order", async () => {
    const { log, run } = recorder();
    const signal = new AbortController().signal;
    const calls = [
      call("r1", "read_file"),
      call("r2", "read_file"),
      call("w1", "apply_patch"),
      call("w2", "apply_patch"),
      call("r3", "read_file"),
    ];
    const results = await runToolBatch(calls, { run, effectOf, signal, stopReason: () => "" });
    expect(results.map((r) => r.tool_call_id)).toEqual(["r1", "r2", "w1", "w2", "r3"]);
    expect(log).toEqual([
      "start r1",
      "start r2",
      "end r1",
      "end r2",
      "start w1",
      "end w1",
      "start w2",
      "end w2",
      "start r3",
      "end r3",
    ]);
  });

  it("answers every call after an abort: the running one as stopped, the rest as not started", async () => {
    const controller = new AbortController();
    const run = async (c: ToolCallRequest): Promise<ToolCallResult> => {
      controller.abort();
      throw new Error(`aborted ${c.id}`);
    };
    const calls = [call("w1", "apply_patch"), call("r1", "read_file")];
    const results = await runToolBatch(calls, {
      run,
      effectOf,
      signal: controller.signal,
      stopReason: () => "the user pressed Ctrl-C",
    });
    expect(results).toEqual([
      {
        tool_call_id: "w1",
        ok: false,
        content:
          "Error [aborted]: apply_patch was stopped because the user pressed Ctrl-C. No file was left half written; read files again before relying on them.",
      },
      {
        tool_call_id: "r1",
        ok: false,
        content:
          "Error [aborted]: read_file was not started because the user pressed Ctrl-C. No file was left half written; read files again before relying on them.",
      },
    ]);
  });

  it("still answers a call whose runner throws for another reason", async () => {
    const run = async (): Promise<ToolCallResult> => {
      throw new Error("boom");
    };
    const [result] = await runToolBatch([call("x", "read_file")], {
      run,
      effectOf,
      signal: new AbortController().signal,
      stopReason: () => "",
    });
    expect(result).toEqual({
      tool_call_id: "x",
      ok: false,
      content: "Error: read_file failed inside the harness: boom",
    });
  });
});
