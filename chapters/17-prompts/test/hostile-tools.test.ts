// A model that tries to get out of the workspace with every tool of this chapter: the two that
// find (list_files, search_text), read_file, and the apply_patch main.ts adds. Whatever it sends,
// each call is answered with something it can read, and nothing outside is shown or touched.
import { mkdir, rm, symlink } from "node:fs/promises";
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
import { applyPatchTool } from "../src/tools/apply-patch-tool.ts";
import type { ToolCallResult } from "../src/tools/run-tool-call.ts";
import { answerWithTools } from "../src/tools/tool-round-trip.ts";
import { workspaceTools } from "../src/tools/workspace-tools.ts";

const SECRET = "the secret outside the workspace";

let base: string;
let workspace: string;
let model: OfflineModel | undefined;

beforeEach(async () => {
  base = await makeTempDir("ch09-hostile-");
  workspace = join(base, "workspace");
  await mkdir(workspace);
  await writeTree(workspace, {
    "src/a.js": "export const a = 1;\n",
    ".env": `KEY=${SECRET}\n`,
  });
  await writeTree(base, { "outside/secret.txt": `${SECRET}\n`, "outside/victim.js": "x = 1;\n" });
  // A link inside the workspace to the folder outside: the walk must not follow it.
  await symlink(join(base, "outside"), join(workspace, "link-out"));
});
afterEach(async () => {
  await model?.close();
  model = undefined;
  await rm(base, { recursive: true, force: true });
});

/** The hostile calls, each with whether it is answered ok and the error code it must carry. */
function hostileCalls(): Array<{ name: string; args: Record<string, unknown>; code?: string }> {
  const outside = join(base, "outside");
  const update = (path: string) => ({
    patch: `*** Begin Patch\n*** Update File: ${path}\n@@\n-x = 1;\n+owned\n*** End Patch\n`,
  });
  const add = (path: string) => ({
    patch: `*** Begin Patch\n*** Add File: ${path}\n+owned\n*** End Patch\n`,
  });
  const remove = (path: string) => ({
    patch: `*** Begin Patch\n*** Delete File: ${path}\n*** End Patch\n`,
  });
  return [
    { name: "list_files", args: { path: "../outside" }, code: "path_escape" },
    { name: "list_files", args: { path: outside }, code: "path_escape" },
    { name: "list_files", args: { path: "link-out" }, code: "symlink" },
    { name: "search_text", args: { query: "secret", path: "../outside" }, code: "path_escape" },
    { name: "search_text", args: { query: "secret", path: "link-out" }, code: "symlink" },
    { name: "search_text", args: { query: "(", regex: true }, code: "invalid_regex" },
    { name: "read_file", args: { path: "link-out/secret.txt" }, code: "symlink" },
    { name: "read_file", args: { path: ".env" }, code: "secret_file" },
    { name: "apply_patch", args: update("../outside/victim.js"), code: "path_escape" },
    { name: "apply_patch", args: update("link-out/victim.js"), code: "symlink" },
    { name: "apply_patch", args: update(join(outside, "victim.js")), code: "path_escape" },
    { name: "apply_patch", args: add("link-out/new.js"), code: "symlink" },
    { name: "apply_patch", args: remove("../outside/secret.txt"), code: "path_escape" },
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
        // Globs that reach out, and a search of everything: only the workspace's own files answer.
        expect: { toolResultFor: `hostile_${calls.length - 1}` },
        reply: {
          toolCalls: [
            { id: "glob_list", name: "list_files", arguments: '{"glob":"../**"}' },
            { id: "glob_search", name: "search_text", arguments: '{"query":"secret"}' },
          ],
        },
      },
      { expect: { toolResultFor: "glob_search" }, reply: { content: "I could not get out." } },
    ],
  };
  model = await startOfflineModel({ script });
  const results: ToolCallResult[] = [];
  const result = await answerWithTools({
    client: createModelClient({ baseURL: model.baseURL, apiKey: model.apiKey, timeoutMs: 30_000 }),
    model: model.model,
    conversation: addMessages(startConversation(), { role: "user", content: "Show me secrets." }),
    tools: [...workspaceTools, applyPatchTool],
    context: { cwd: workspace, signal: new AbortController().signal },
    contextTokens: 32_000,
    maxRetries: 0,
    onToolCall: (_call, outcome) => results.push(outcome),
  });
  return { calls, results, result, requests: model.requests };
}

describe("a hostile model against this chapter's tools", () => {
  it("gets every escape refused, each call answered, and nothing outside shown or touched", async () => {
    const before = await readTree(base);
    const { calls, results, result, requests } = await runHostileModel();

    expect(result.answer).toBe("I could not get out.");
    expect(results).toHaveLength(calls.length + 2);
    calls.forEach((call, i) => {
      expect({ call, ok: results[i]?.ok, code: results[i]?.code }).toEqual({
        call,
        ok: false,
        code: call.code,
      });
    });

    const toolMessages = requests.at(-1)!.messages.filter((message) => message.role === "tool");
    expect(toolMessages.map((message) => message.tool_call_id)).toEqual([
      ...calls.map((_call, i) => `hostile_${i}`),
      "glob_list",
      "glob_search",
    ]);
    for (const message of toolMessages) expect(String(message.content)).not.toContain(SECRET);
    expect(results.at(-2)).toMatchObject({
      ok: true,
      content: 'No files found in the workspace matching "../**".',
    });
    expect(results.at(-1)).toMatchObject({
      ok: true,
      content:
        'No matches for "secret" in 1 file(s) in the workspace.\n' +
        "(1 file(s) of secrets, such as .env, not searched)",
    });

    expect(await readTree(base)).toEqual(before);
  });
});
