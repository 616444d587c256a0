// Exercise "Find the refused patch", offline part: a tool_call event of apply_patch that failed on
// some files names them in `failed_paths`, so the ledger alone says where to look. Checked with the
// offline model's "one good file, one refused" script (shared/scripts/demo-13-two-files.json).
import assert from "node:assert/strict";
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { copyDemoRepo } from "../../../shared/src/demo-repo.ts";
import { loadScript, startOfflineModel } from "../../../shared/src/offline-model/index.ts";

interface Ledger {
  readonly path: string;
  finish(reason: string): Promise<void>;
  close(): Promise<void>;
}
interface Modules {
  ledger: {
    RunLedger: { open(cwd: string, info: { task: string; model: string }): Promise<Ledger> };
  };
  conversation: {
    startConversation(system: string): unknown;
    addMessages(conversation: unknown, message: { role: "user"; content: string }): unknown;
  };
  client: {
    createModelClient(endpoint: { baseURL: string; apiKey: string; timeoutMs: number }): unknown;
  };
  roundTrip: {
    answerWithTools(options: Record<string, unknown>): Promise<{ answer: string | null }>;
  };
  patchTool: { applyPatchTool: unknown };
  workspaceTools: { workspaceTools: unknown[] };
}

const TASK = "The total with a coupon is wrong. Find the bug and fix it.";

export default async function check(chapterDir: string): Promise<void> {
  const load = async <T>(file: string) =>
    (await import(pathToFileURL(join(chapterDir, "src", file)).href)) as T;
  const m: Modules = {
    ledger: await load("ledger/run-ledger.ts"),
    conversation: await load("context/conversation.ts"),
    client: await load("model/model-client.ts"),
    roundTrip: await load("tools/tool-round-trip.ts"),
    patchTool: await load("tools/apply-patch-tool.ts"),
    workspaceTools: await load("tools/workspace-tools.ts"),
  };
  const workspace = await copyDemoRepo("failed-paths-");
  const model = await startOfflineModel({ script: loadScript("demo-13-two-files") });
  const ledger = await m.ledger.RunLedger.open(workspace, { task: TASK, model: model.model });
  try {
    // The model reads src/cart.mjs, then patches it and src/format.mjs, which it never read.
    await m.roundTrip.answerWithTools({
      client: m.client.createModelClient({
        baseURL: model.baseURL,
        apiKey: model.apiKey,
        timeoutMs: 30_000,
      }),
      model: model.model,
      conversation: m.conversation.addMessages(m.conversation.startConversation("You fix bugs."), {
        role: "user",
        content: TASK,
      }),
      tools: [...m.workspaceTools.workspaceTools, m.patchTool.applyPatchTool],
      context: { cwd: workspace, signal: new AbortController().signal, ledger },
      contextTokens: 32_000,
      maxRetries: 0,
    });
    await ledger.finish("done");

    const events = (await readFile(ledger.path, "utf8"))
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const toolCalls = events.filter((event) => event.type === "tool_call");
    const patch = toolCalls.find((event) => event.tool === "apply_patch");
    assert.ok(patch, "the ledger should hold the apply_patch tool_call");
    assert.equal(patch.outcome, "error", "the partly applied patch is an error on the record");
    assert.equal(patch.code, "not_read");
    assert.deepEqual(
      patch.failed_paths,
      ["src/format.mjs"],
      "the apply_patch tool_call should name the file that failed in failed_paths",
    );
    const read = toolCalls.find((event) => event.tool === "read_file");
    assert.equal(
      read !== undefined && "failed_paths" in read,
      false,
      "a tool call that is not a failed patch should have no failed_paths",
    );
  } finally {
    await ledger.close();
    await model.close();
    await rm(workspace, { recursive: true, force: true });
  }
}
