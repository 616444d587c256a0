// A model that tries to get out of the workspace, or to get a secret out of it. Whatever it
// sends, every call is answered with a refusal it can read, nothing outside the workspace is read
// or touched, and no secret reaches the model. Chapter 3's version of this test left one hole open
// on purpose, a symlink inside the workspace; here the links are the main attack.
import { execFileSync } from "node:child_process";
import { access, mkdir, readFile, rm, symlink, truncate, writeFile } from "node:fs/promises";
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
const KEY = "OPENAI_API_KEY=sk-live-do-not-send";
const HUGE = "x".repeat(100_000);

let base: string;
let workspace: string;
let model: OfflineModel | undefined;

beforeEach(async () => {
  base = await makeTempDir("ch07-hostile-");
  workspace = join(base, "workspace");
  await mkdir(workspace);
  await writeTree(workspace, { "src/a.js": "export const a = 1;\n", ".env": `${KEY}\n` });
  await writeTree(base, { "outside/secret.txt": `${SECRET}\n`, "outside/victim.js": "x = 1;\n" });
  const link = (target: string, name: string) => symlink(target, join(workspace, name));
  await link("../outside", "home"); // a folder link leading out
  await link("../outside/secret.txt", "notes.txt"); // a file link leading out
  await link("../outside/created.js", "new.js"); // dangling: a write would create it outside
  await link("loop", "loop"); // a link to itself
  await link(".env", "config.txt"); // inside, but a secret under another name
  execFileSync("mkfifo", [join(workspace, "events.log")]); // a reader would wait for a writer
  await writeFile(join(workspace, "dump.sql"), "");
  await truncate(join(workspace, "dump.sql"), 25_000_000); // sparse: big on paper, instant here
});
afterEach(async () => {
  await model?.close();
  model = undefined;
  await rm(base, { recursive: true, force: true });
});

/** The hostile calls, each with the error code its answer must carry. */
function hostileCalls(): Array<{ name: string; args: Record<string, unknown>; code: string }> {
  const secret = join(base, "outside", "secret.txt");
  const edit = (path: string, old_text = "x = 1;") => ({ path, old_text, new_text: "owned" });
  return [
    { name: "read_file", args: { path: "../outside/secret.txt" }, code: "path_escape" },
    { name: "read_file", args: { path: secret }, code: "path_escape" },
    { name: "read_file", args: { path: "~/.ssh/id_rsa" }, code: "path_escape" },
    { name: "read_file", args: { path: "src/a.js\u0000.txt" }, code: "path_escape" },
    { name: "read_file", args: { path: "notes.txt" }, code: "symlink" },
    { name: "read_file", args: { path: "home/secret.txt" }, code: "symlink" },
    { name: "read_file", args: { path: "loop/a.js" }, code: "symlink" },
    { name: "read_file", args: { path: "events.log" }, code: "not_regular_file" },
    { name: "read_file", args: { path: "dump.sql" }, code: "file_too_large" },
    { name: "read_file", args: { path: ".env" }, code: "secret_file" },
    { name: "read_file", args: { path: "config.txt" }, code: "secret_file" },
    { name: "edit_file", args: edit("../outside/victim.js"), code: "path_escape" },
    { name: "edit_file", args: edit("home/victim.js"), code: "symlink" },
    { name: "edit_file", args: edit("new.js"), code: "symlink" },
    { name: "edit_file", args: edit("events.log"), code: "file_not_found" },
    // edit_file as an oracle: "does old_text occur?" would spell out the key, guess by guess.
    { name: "edit_file", args: edit(".env", "OPENAI_API_KEY=sk-live"), code: "secret_file" },
    { name: "edit_file", args: edit("config.txt", "OPENAI_API_KEY=sk-dead"), code: "secret_file" },
    { name: "edit_file", args: edit("src/a.js", HUGE), code: "no_match" },
    { name: "list_files", args: { path: "home" }, code: "symlink" },
    { name: "list_files", args: { path: "../" }, code: "path_escape" },
  ];
}

async function runHostileModel() {
  const calls = hostileCalls();
  const script: Script = {
    name: "hostile",
    description: "test: a model that tries to leave the workspace or read its secrets",
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
        expect: { toolResultFor: `hostile_${calls.length - 1}` },
        reply: { toolCalls: [{ id: "hostile_list", name: "list_files", arguments: "{}" }] },
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
    contextTokens: 32_000,
    maxRetries: 0,
    onToolCall: (_call, outcome) => results.push(outcome),
  });
  return { calls, results, result, requests: model.requests };
}

describe.runIf(process.platform !== "win32")("a hostile model against the guarded tools", () => {
  it("gets every escape and every secret refused, each call answered, nothing outside touched", async () => {
    const outsideBefore = await readTree(join(base, "outside"));
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

    // Every call got its answer, and none of them carried a secret back to the model.
    const toolMessages = requests.at(-1)!.messages.filter((message) => message.role === "tool");
    expect(toolMessages.map((message) => message.tool_call_id)).toEqual([
      ...calls.map((_call, i) => `hostile_${i}`),
      "hostile_list",
    ]);
    for (const message of toolMessages) {
      expect(String(message.content)).not.toContain(SECRET);
      expect(String(message.content)).not.toContain("sk-live");
    }
    // Links, the FIFO and what they lead to are not listed: only regular files inside.
    expect(results.at(-1)).toMatchObject({
      ok: true,
      content: "3 file(s) in the workspace:\n.env\ndump.sql\nsrc/a.js",
    });

    expect(await readTree(join(base, "outside"))).toEqual(outsideBefore);
    await expect(access(join(base, "outside", "created.js"))).rejects.toThrow(/ENOENT/);
    expect(await readFile(join(workspace, ".env"), "utf8")).toBe(`${KEY}\n`);
  });
});
