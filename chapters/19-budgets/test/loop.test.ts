import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { runDemoCheck } from "@build-agent/shared/demo-repo";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { RunLedger } from "../src/ledger/run-ledger.ts";
import { addMessages, startConversation } from "../src/context/conversation.ts";
import { runAgentLoop } from "../src/loop/agent-loop.ts";
import { BudgetTracker, DEFAULT_BUDGETS } from "../src/loop/budgets.ts";
import { createModelClient } from "../src/model/model-client.ts";
import { defineTool, type ToolResult } from "../src/tools/define-tool.ts";
import { sha256 } from "../src/fs/file-hash.ts";
import { runToolCall } from "../src/tools/run-tool-call.ts";
import { workspaceTools } from "../src/tools/workspace-tools.ts";
import { undoRun } from "../src/ledger/undo.ts";
import { loopFixture, resultsPerCall, type LoopFixture } from "./loop-harness.ts";

let fixture: LoopFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

const FIXED = "const goods = Math.max(0, subtotal(items) - couponCents);";

describe("the agent loop, with the offline model through the real SDK", () => {
  it("reads, patches and finishes; the ledger holds the whole run", async () => {
    fixture = await loopFixture("fix-bug");
    const run = await fixture.run();

    expect(run.outcome.reason).toBe("done");
    expect(run.outcome.answer).toContain("Fixed src/cart.mjs");
    expect(await readFile(join(fixture.workspace, "src/cart.mjs"), "utf8")).toContain(FIXED);
    expect((await runDemoCheck(fixture.workspace)).ok).toBe(true);
    expect(resultsPerCall(run)).toEqual({ call_read_cart: 1, call_patch_cart: 1 });

    // Replayed from disk, not from memory: the file is the record.
    const ledger = await RunLedger.load(fixture.workspace, run.ledger.runId);
    expect(ledger.events().map((e) => e.type)).toEqual([
      "run_start",
      "model_call",
      "file_read",
      "tool_call",
      "model_call",
      "file_written",
      "tool_call",
      "model_call",
      "run_end",
    ]);
    expect(ledger.end?.reason).toBe("done");
    expect(ledger.toolCalls()).toEqual([
      { tool: "read_file", callId: "call_read_cart", outcome: "ok", code: undefined },
      { tool: "apply_patch", callId: "call_patch_cart", outcome: "ok", code: undefined },
    ]);
    expect(ledger.changedFiles().map((c) => [c.status, c.path])).toEqual([
      ["modified", "src/cart.mjs"],
    ]);
    expect(ledger.usage().model_calls).toBe(3);
    // The hashes chain: what was read is what the patch replaced, and what it wrote is on disk.
    const events = ledger.events();
    const read = events.find((e) => e.type === "file_read");
    const written = events.find((e) => e.type === "file_written");
    const onDisk = sha256(await readFile(join(fixture.workspace, "src/cart.mjs")));
    expect(read).toMatchObject({ path: "src/cart.mjs", full: true });
    expect(written).toMatchObject({
      path: "src/cart.mjs",
      before_sha256: read?.type === "file_read" ? read.sha256 : "",
      after_sha256: onDisk,
      revision: 1,
    });
    expect(ledger.revision).toBe(1);
    expect(run.notes.map((n) => n.title)).toEqual(["Patch applied"]);
  });

  it("can be undone afterwards", async () => {
    fixture = await loopFixture("fix-bug");
    const run = await fixture.run();
    const undo = await undoRun(fixture.workspace, run.ledger.runId);
    expect(undo.restored).toEqual(["src/cart.mjs"]);
    expect(await readFile(join(fixture.workspace, "src/cart.mjs"), "utf8")).not.toContain(FIXED);
    expect((await runDemoCheck(fixture.workspace)).ok).toBe(false);
  });
});

describe("faults the model endpoint can throw at the loop", () => {
  it.each([
    ["rate_limit", { kind: "rate_limit", retryAfterSeconds: 0 }],
    ["server_error", { kind: "server_error" }],
  ] as const)("%s: the call is retried and the run finishes", async (_, fault) => {
    fixture = await loopFixture("fix-bug", [fault]);
    const run = await fixture.run();
    expect(run.outcome.reason).toBe("done");
    expect(fixture.offline.requests).toHaveLength(4);
    // The failed call is on the record too, as a model call without usage.
    expect(run.ledger.usage()).toMatchObject({ model_calls: 4, unreported_calls: 1 });
    expect(run.ledger.toolCalls().map((c) => c.callId)).toEqual([
      "call_read_cart",
      "call_patch_cart",
    ]);
    expect(resultsPerCall(run)).toEqual({ call_read_cart: 1, call_patch_cart: 1 });
    expect((await runDemoCheck(fixture.workspace)).ok).toBe(true);
  });

  it("cut_stream_mid_tool_call: the half call never runs; with text already shown the run ends", async () => {
    fixture = await loopFixture("fix-bug", [{ kind: "cut_stream_mid_tool_call" }]);
    const run = await fixture.run();
    // The first turn streamed text before the cut, and a retry would print a second answer
    // after the first half (chapter 01), so the run ends instead.
    expect(run.outcome.reason).toBe("error");
    expect(run.outcome.message).toBe(
      `stopped: the answer from ${fixture.offline.baseURL} was cut off before it finished: try again`,
    );
    expect(run.ledger.toolCalls()).toEqual([]);
    expect(run.outcome.conversation.history.map((m) => m.role)).toEqual(["user"]);
    expect((await RunLedger.load(fixture.workspace, run.ledger.runId)).end?.reason).toBe("error");
  });

  it("cut_stream_mid_tool_call before any text: retried, and each whole call runs once", async () => {
    fixture = await loopFixture("loop-delete", [{ kind: "cut_stream_mid_tool_call" }]);
    const run = await fixture.run();
    expect(run.outcome.reason).toBe("done");
    expect(fixture.offline.requests).toHaveLength(4);
    expect(run.ledger.toolCalls().map((c) => c.callId)).toEqual([
      "call_read_readme",
      "call_delete_readme",
    ]);
    expect(resultsPerCall(run)).toEqual({ call_read_readme: 1, call_delete_readme: 1 });
  });

  it("malformed tool arguments: the call gets an error result, and the guard refuses the blind patch", async () => {
    fixture = await loopFixture("fix-bug", [{ kind: "malformed_tool_arguments" }]);
    const run = await fixture.run();
    expect(run.outcome.reason).toBe("done");
    expect(resultsPerCall(run)).toEqual({ call_read_cart: 1, call_patch_cart: 1 });
    const [read, patch] = fixture.shown;
    expect(read?.result.ok).toBe(false);
    expect(read?.result.content).toMatch(/^Error: the arguments for read_file are not valid JSON/);
    // The read never happened, so the hash guard has nothing to go on.
    expect(patch?.result.content).toMatch(
      /^Patch not applied, no file changed\. Failed: src\/cart\.mjs: not_read\./,
    );
    // apply_patch returned (the model needs its JSON), but the call did not work: say so.
    expect(patch?.result.ok).toBe(false);
    expect(run.ledger.toolCalls()).toEqual([
      { tool: "read_file", callId: "call_read_cart", outcome: "error", code: undefined },
      { tool: "apply_patch", callId: "call_patch_cart", outcome: "error", code: "not_read" },
    ]);
    expect(run.ledger.changedFiles()).toEqual([]);
  });

  it("a failed model call is a step: a server error, then the retry, spend a budget of 2", async () => {
    fixture = await loopFixture("fix-bug", [{ kind: "server_error" }]);
    const run = await fixture.run({ budgets: { maxSteps: 2 } });
    expect(run.outcome.reason).toBe("budget");
    expect(run.outcome.message).toBe(
      "stopped: step budget used up: 2 of 2 model calls (raise it with --max-steps)",
    );
    expect(fixture.offline.requests).toHaveLength(2);
    // The retry's tool call still ran and was answered before the budget stopped the run.
    expect(resultsPerCall(run)).toEqual({ call_read_cart: 1 });
    expect(run.ledger.end?.reason).toBe("budget");
  });

  it.each([
    [
      "unknown_model",
      { kind: "unknown_model" },
      'model "offline-scripted-demo" not found at BASE: check AGENT_MODEL',
    ],
    ["bad_key", { kind: "bad_key" }, "key rejected by BASE: check OPENAI_API_KEY"],
  ] as const)(
    "%s: not retried; the run ends with an error that says what to check",
    async (_, fault, text) => {
      fixture = await loopFixture("fix-bug", [fault]);
      const run = await fixture.run();
      expect(run.outcome.reason).toBe("error");
      expect(run.outcome.message).toBe(`stopped: ${text.replace("BASE", fixture.offline.baseURL)}`);
      expect(fixture.offline.requests).toHaveLength(1);
      const ledger = await RunLedger.load(fixture.workspace, run.ledger.runId);
      expect(ledger.end?.reason).toBe("error");
    },
  );

  it("a stalled model is stopped by the time budget", async () => {
    fixture = await loopFixture("fix-bug", [{ kind: "stall", ms: 15_000 }]);
    const run = await fixture.run({ budgets: { maxTimeMs: 500 } });
    expect(run.outcome.reason).toBe("budget");
    expect(run.outcome.message).toMatch(
      /^stopped: time budget used up: \d+s of 1s \(raise it with --max-time\)$/,
    );
    expect(run.ledger.end?.reason).toBe("budget");
  });
});

describe("every tool call gets exactly one result", () => {
  it("for a tool that throws", async () => {
    fixture = await loopFixture("loop-endless");
    // loop-endless reads cart.mjs and format.mjs on every turn; this read_file breaks on one.
    const brokenRead = defineTool({
      name: "read_file",
      description: "throws for format.mjs",
      effect: "read",
      schema: z.object({ path: z.string() }),
      execute: async ({ path }) => {
        if (path.endsWith("format.mjs")) throw new Error("disk on fire");
        return { ok: true, content: "ok" };
      },
    });
    const run = await fixture.run({ tools: () => [brokenRead], budgets: { maxSteps: 1 } });
    expect(resultsPerCall(run)).toEqual({ call_read_cart: 1, call_read_format: 1 });
    expect(fixture.shown.map((s) => [s.result.ok, s.result.content])).toEqual([
      [true, "ok"],
      [false, "Error: read_file failed: disk on fire"],
    ]);
    expect(run.ledger.toolCalls().map((c) => c.outcome)).toEqual(["ok", "error"]);
  });

  it("for a tool the harness does not have (a model may name one it was never offered)", async () => {
    fixture = await loopFixture("loop-endless");
    const { offline, workspace } = fixture;
    // The offline model only calls tools it was offered, so the runner here knows none of them.
    const outcome = await runAgentLoop({
      client: createModelClient({
        baseURL: offline.baseURL,
        apiKey: offline.apiKey,
        timeoutMs: 20_000,
      }),
      model: offline.model,
      maxRetries: 0,
      contextTokens: 100_000,
      conversation: addMessages(startConversation("test"), { role: "user", content: "go" }),
      tools: workspaceTools,
      runCall: (call, signal) => runToolCall([], call, { cwd: workspace, signal }),
      ledger: { recordModelCall: async () => {} },
      budgets: new BudgetTracker({ ...DEFAULT_BUDGETS, maxSteps: 1 }),
      signal: new AbortController().signal,
    });
    expect(outcome.reason).toBe("budget");
    const results = outcome.conversation.history.filter((m) => m.role === "tool");
    expect(results).toEqual([
      {
        role: "tool",
        tool_call_id: "call_read_cart",
        content: 'Error: unknown tool "read_file". Available tools: .',
      },
      {
        role: "tool",
        tool_call_id: "call_read_format",
        content: 'Error: unknown tool "read_file". Available tools: .',
      },
    ]);
  });
});

describe("budgets", () => {
  it("max steps ends a model that never stops, with every tool call answered", async () => {
    fixture = await loopFixture("loop-endless");
    const run = await fixture.run({ budgets: { maxSteps: 3 } });
    expect(run.outcome.reason).toBe("budget");
    expect(run.outcome.message).toBe(
      "stopped: step budget used up: 3 of 3 model calls (raise it with --max-steps)",
    );
    expect(fixture.offline.requests).toHaveLength(3);
    expect(Object.values(resultsPerCall(run))).toEqual([1, 1]);
    expect(run.outcome.conversation.history.at(-1)?.role).toBe("tool");
  });

  it("max tokens ends the run once the tokens are spent", async () => {
    fixture = await loopFixture("loop-endless");
    const run = await fixture.run({ budgets: { maxTokens: 1 } });
    expect(run.outcome.reason).toBe("budget");
    expect(run.outcome.message).toMatch(
      /^stopped: token budget used up: \d+ of 1 tokens \(raise it with --max-tokens\)$/,
    );
    expect(fixture.offline.requests).toHaveLength(1);
  });
});

describe("Ctrl-C", () => {
  it("mid-stream: stops the model call, writes nothing, closes the ledger as aborted", async () => {
    fixture = await loopFixture("fix-bug", [{ kind: "stall", ms: 15_000 }]);
    const controller = new AbortController();
    const offline = fixture.offline;
    const poll = setInterval(() => {
      if (offline.requests.length > 0) controller.abort();
    }, 5);
    const run = await fixture.run({ signal: controller.signal }).finally(() => clearInterval(poll));
    expect(run.outcome.reason).toBe("aborted");
    expect(run.outcome.message).toBe("stopped: you pressed Ctrl-C");
    const ledger = await RunLedger.load(fixture.workspace, run.ledger.runId);
    expect(ledger.end?.reason).toBe("aborted");
    expect(ledger.toolCalls()).toEqual([]);
    expect(ledger.usage()).toMatchObject({ model_calls: 1, unreported_calls: 1 });
    expect((await runDemoCheck(fixture.workspace)).ok).toBe(false);
  });

  it("mid-tool: every call of the batch still gets exactly one result", async () => {
    fixture = await loopFixture("loop-endless");
    const controller = new AbortController();
    // A read_file that hangs until aborted, and presses Ctrl-C itself once both calls are running.
    let started = 0;
    const hangingRead = defineTool({
      name: "read_file",
      description: "hangs",
      effect: "read",
      schema: z.object({ path: z.string() }),
      execute: (_args, context) =>
        new Promise<ToolResult>((_resolve, reject) => {
          context.signal.addEventListener("abort", () => reject(new Error("aborted")));
          if (++started === 2) controller.abort();
        }),
    });
    const run = await fixture.run({ signal: controller.signal, tools: () => [hangingRead] });
    expect(run.outcome.reason).toBe("aborted");
    expect(resultsPerCall(run)).toEqual({ call_read_cart: 1, call_read_format: 1 });
    const last = run.outcome.conversation.history.at(-1);
    expect(last).toEqual({
      role: "tool",
      tool_call_id: "call_read_format",
      content:
        "Error [aborted]: read_file was stopped because the user pressed Ctrl-C. No file was left half written; read files again before relying on them.",
    });
    const ledger = await RunLedger.load(fixture.workspace, run.ledger.runId);
    expect(ledger.toolCalls().map((c) => c.code)).toEqual(["aborted", "aborted"]);
    expect(ledger.end?.reason).toBe("aborted");
  });
});
