import { readFile, rm } from "node:fs/promises";
import path from "node:path";
import { copyDemoRepo, runDemoCheck } from "@build-agent/shared/demo-repo";
import {
  loadScript,
  startOfflineModel,
  type OfflineModel,
} from "@build-agent/shared/offline-model";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { addMessages, startConversation } from "../src/context/conversation.ts";
import { RunLedger } from "../src/ledger/run-ledger.ts";
import { createModelClient } from "../src/model/model-client.ts";
import { NoteStore } from "../src/notes/note-store.ts";
import { answerWithTools } from "../src/tools/tool-round-trip.ts";
import { applyPatchTool } from "../src/tools/apply-patch-tool.ts";
import { noteTool } from "../src/tools/note-tool.ts";
import { sha256 } from "../src/fs/file-hash.ts";
import { workspaceTools } from "../src/tools/workspace-tools.ts";
import { undoRun } from "../src/ledger/undo.ts";

let workspace: string;
let model: OfflineModel | undefined;

beforeEach(async () => {
  workspace = await copyDemoRepo("ch16-ledger-");
});
afterEach(async () => {
  await model?.close();
  model = undefined;
  await rm(workspace, { recursive: true, force: true });
});

const TASK = "The total with a coupon is wrong. Find the bug and fix it.";

describe("the harness keeps the run's ledger", () => {
  it("records the scripted bug fix, leaves a note, and the run can be undone", async () => {
    const cartPath = path.join(workspace, "src/cart.mjs");
    const before = await readFile(cartPath);
    model = await startOfflineModel({ script: loadScript("fix-bug") });
    const ledger = await RunLedger.open(workspace, { task: TASK, model: model.model });
    const notes = new NoteStore(workspace);

    const result = await answerWithTools({
      client: createModelClient({
        baseURL: model.baseURL,
        apiKey: model.apiKey,
        timeoutMs: 30_000,
      }),
      model: model.model,
      conversation: addMessages(startConversation("You fix bugs."), {
        role: "user",
        content: TASK,
      }),
      tools: [...workspaceTools, applyPatchTool, noteTool],
      context: { cwd: workspace, signal: new AbortController().signal, ledger, notes },
      contextTokens: 32_000,
      maxRetries: 0,
    });
    await ledger.finish("done");
    expect(result.answer).toContain("Fixed src/cart.mjs");
    const after = await readFile(cartPath);

    // The file on disk, event by event, in the order things happened.
    const replayed = await RunLedger.load(workspace, ledger.runId);
    expect(replayed.events().map((event) => event.type)).toEqual([
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
    expect(replayed.events()).toMatchObject([
      { task: TASK },
      { model: model.model, usage: { input_tokens: expect.any(Number) } },
      { path: "src/cart.mjs", sha256: sha256(before), full: true },
      { tool: "read_file", call_id: "call_read_cart", outcome: "ok" },
      {},
      {
        path: "src/cart.mjs",
        before_sha256: sha256(before),
        after_sha256: sha256(after),
        revision: 1,
      },
      { tool: "apply_patch", call_id: "call_patch_cart", outcome: "ok" },
      {},
      { reason: "done" },
    ]);
    expect(replayed.usage().model_calls).toBe(3);
    expect(replayed.changedFiles()).toEqual([
      {
        path: "src/cart.mjs",
        status: "modified",
        before_sha256: sha256(before),
        after_sha256: sha256(after),
      },
    ]);

    const [note] = await notes.list();
    expect(note).toMatchObject({ title: "Patch applied", type: "action" });
    expect((await notes.read(note!.id)).body).toContain(`## User input\n\n${TASK}\n`);

    expect((await runDemoCheck(workspace)).ok).toBe(true);
    expect(await undoRun(workspace)).toEqual({
      runId: ledger.runId,
      restored: ["src/cart.mjs"],
      removed: [],
      alreadyUndone: [],
      damaged: [],
    });
    expect(await readFile(cartPath)).toEqual(before);
    expect((await runDemoCheck(workspace)).ok).toBe(false);
  });
});
