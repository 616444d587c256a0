// A model that tries to get out of the workspace. Whatever it sends, every call is answered with a
// refusal it can read, and nothing outside the workspace is read or touched. One hole is left open
// on purpose: a symlink inside the workspace that points outside gets through this chapter's
// lexical check; chapter 7 resolves real paths and closes it (see the page, "What this version
// lacks").
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import {
  startOfflineModel,
  type OfflineModel,
  type Script,
} from "@build-agent/shared/offline-model";
import { makeTempDir, readTree, writeTree } from "@build-agent/shared/test-helpers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { addMessages, startConversation } from "../src/context/conversation.ts";
import { createModelClient } from "../src/model/model-client.ts";
import type { ToolCallResult } from "../src/tools/run-tool-call.ts";
import { answerWithTools } from "../src/tools/tool-round-trip.ts";
import { workspaceTools } from "../src/tools/workspace-tools.ts";

const SECRET = "the secret outside the workspace";
const HUGE = "x".repeat(100_000);

let base: string;
let workspace: string;
let model: OfflineModel | undefined;

beforeEach(async () => {
  base = await makeTempDir("ch04-hostile-");
  workspace = join(base, "workspace");
  await mkdir(workspace);
  await writeTree(workspace, { "src/a.js": "export const a = 1;\n" });
  await writeTree(base, { "outside/secret.txt": `${SECRET}\n`, "outside/victim.js": "x = 1;\n" });
});
afterEach(async () => {
  await model?.close();
  model = undefined;
  await rm(base, { recursive: true, force: true });
});

/** The hostile calls, each with the error code its answer must carry (undefined: no code). */
function hostileCalls(): Array<{ name: string; args: Record<string, unknown>; code?: string }> {
  const secret = join(base, "outside", "secret.txt");
  const victim = join(base, "outside", "victim.js");
  const edit = (path: string, old_text = "x = 1;") => ({ path, old_text, new_text: "owned" });
  return [
    { name: "read_file", args: { path: "../outside/secret.txt" }, code: "path_escape" },
    { name: "read_file", args: { path: "src/../../outside/secret.txt" }, code: "path_escape" },
    { name: "read_file", args: { path: secret }, code: "path_escape" },
    { name: "read_file", args: { path: "/etc/passwd" }, code: "path_escape" },
    { name: "read_file", args: { path: "~/.ssh/id_rsa" }, code: "path_escape" },
    { name: "read_file", args: { path: "src/a.js\u0000.txt" } },
    { name: "read_file", args: { path: "../outside/secret.txt\u0000.js" }, code: "path_escape" },
    { name: "edit_file", args: edit("../outside/victim.js"), code: "path_escape" },
    { name: "edit_file", args: edit("src/../../outside/victim.js"), code: "path_escape" },
    { name: "edit_file", args: edit(victim), code: "path_escape" },
    { name: "edit_file", args: edit("~/victim.js"), code: "path_escape" },
    { name: "edit_file", args: edit("src/a.js", HUGE), code: "no_match" },
  ];
}

async function runHostileModel() {
  const calls = hostileCalls();
  const script: Script = {
    name: "hostile",
    description: "test: a model that tries to leave the workspace",
    steps: [
      {
        reply: {
          content: "Let me look around.",
          toolCalls: calls.map((call, i) => ({
            id: `hostile_${i}`,
            name: call.name,
            arguments: JSON.stringify(call.args),
          })),
        },
      },
      {
        // list_files takes no path: an extra argument is dropped by the schema, not followed.
        expect: { toolResultFor: `hostile_${calls.length - 1}` },
        reply: {
          toolCalls: [{ id: "hostile_list", name: "list_files", arguments: '{"path":"../"}' }],
        },
      },
      { expect: { toolResultFor: "hostile_list" }, reply: { content: "I could not get out." } },
    ],
  };
  model = await startOfflineModel({ script });
  const results: ToolCallResult[] = [];
  const result = await answerWithTools({
    client: createModelClient({ baseURL: model.baseURL, apiKey: model.apiKey, timeoutMs: 30_000 }),
    model: model.model,
    conversation: addMessages(startConversation(), { role: "user", content: "Show me secrets." }),
    tools: workspaceTools,
    context: { cwd: workspace, signal: new AbortController().signal },
    maxRetries: 0,
    onToolCall: (_call, outcome) => results.push(outcome),
  });
  return { calls, results, result, requests: model.requests };
}

describe("a hostile model against the first agent's tools", () => {
  it("gets every escape refused, each call answered, and nothing outside touched", async () => {
    const before = await readTree(base);
    const { calls, results, result, requests } = await runHostileModel();

    expect(result.answer).toBe("I could not get out.");
    expect(results).toHaveLength(calls.length + 1);
    calls.forEach((call, i) => {
      expect({ call: call.args.path, ok: results[i]?.ok, code: results[i]?.code }).toEqual({
        call: call.args.path,
        ok: false,
        code: call.code,
      });
    });
    // The NUL byte: no file name can hold one, so the read fails before anything is opened.
    expect(results[5]?.content).toMatch(/^Error: read_file failed: .*null bytes/);

    // Every call got its answer, and none of them carried the secret back to the model.
    const toolMessages = requests.at(-1)!.messages.filter((message) => message.role === "tool");
    expect(toolMessages.map((message) => message.tool_call_id)).toEqual([
      ...calls.map((_call, i) => `hostile_${i}`),
      "hostile_list",
    ]);
    for (const message of toolMessages) expect(String(message.content)).not.toContain(SECRET);
    expect(results.at(-1)).toMatchObject({ ok: true, content: "1 file(s):\nsrc/a.js" });

    expect(await readTree(base)).toEqual(before);
  });
});
