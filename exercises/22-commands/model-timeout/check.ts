// Exercise "A timeout the model may ask for": run_command takes an optional timeout_seconds, and
// the command is killed at the shorter of the model's timeout and the user's --command-timeout.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

interface Tool {
  name: string;
}
interface ToolModule {
  runCommandTool(settings: {
    policy: { mode: "ask" | "allow-list" | "deny"; allowed: readonly string[] };
    approver: () => Promise<"approved" | "declined" | "no_terminal">;
    timeoutMs: number;
    secrets: readonly string[];
  }): Tool;
}
interface RunToolCallModule {
  runToolCall(
    tools: readonly Tool[],
    call: { id: string; function: { name: string; arguments: string } },
    context: { cwd: string; signal: AbortSignal },
  ): Promise<{ ok: boolean; content: string; code?: string }>;
}
interface DefineToolModule {
  toOpenAITool(tool: Tool): { function: { parameters?: Record<string, unknown> } };
}

export default async function check(chapterDir: string): Promise<void> {
  const load = async <T>(path: string) =>
    (await import(pathToFileURL(join(chapterDir, path)).href)) as T;
  const { runCommandTool } = await load<ToolModule>("src/tools/run-command-tool.ts");
  const { runToolCall } = await load<RunToolCallModule>("src/tools/run-tool-call.ts");
  const { toOpenAITool } = await load<DefineToolModule>("src/tools/define-tool.ts");

  /** The tool with the user's timeout, allowing every command it is asked for here. */
  const tool = (userTimeoutMs: number) =>
    runCommandTool({
      policy: { mode: "allow-list", allowed: ["sleep 3", "true"] },
      approver: async () => "no_terminal",
      timeoutMs: userTimeoutMs,
      secrets: [],
    });
  const cwd = await mkdtemp(join(tmpdir(), "exercise-model-timeout-"));
  const call = (userTimeoutMs: number, args: Record<string, unknown>) =>
    runToolCall(
      [tool(userTimeoutMs)],
      { id: "call_1", function: { name: "run_command", arguments: JSON.stringify(args) } },
      { cwd, signal: new AbortController().signal },
    );
  /** "timed out after 0.3 s and was killed: ..." → 0.3 */
  const killedAfter = (content: string) => {
    const match = /^timed out after (\d+\.\d) s and was killed/.exec(content);
    assert.ok(match, `the command should time out, but the tool said: ${content.split("\n")[0]}`);
    return Number(match[1]);
  };

  try {
    const properties = toOpenAITool(tool(1_000)).function.parameters?.properties as
      Record<string, { type?: string; description?: string }> | undefined;
    assert.ok(
      properties?.timeout_seconds,
      "the schema the model sees should have an optional timeout_seconds",
    );
    assert.equal(properties.timeout_seconds.type, "number");
    assert.ok(
      properties.timeout_seconds.description,
      "timeout_seconds needs a description: the model should know the user's limit still applies",
    );

    const shorter = await call(1_500, { command: "sleep 3", timeout_seconds: 0.3 });
    assert.equal(shorter.code, "timeout");
    assert.ok(
      killedAfter(shorter.content) < 1.2,
      "asked for 0.3 s under a 1.5 s limit, the command should be killed after about 0.3 s",
    );

    const longer = await call(300, { command: "sleep 3", timeout_seconds: 60 });
    assert.equal(longer.code, "timeout");
    assert.ok(
      killedAfter(longer.content) < 1.2,
      "the model cannot ask for more than the user allows: 60 s under a 0.3 s limit is 0.3 s",
    );

    for (const timeout of [0, -1, "10"]) {
      const invalid = await call(1_000, { command: "true", timeout_seconds: timeout });
      assert.ok(
        invalid.content.startsWith("Error: invalid arguments for run_command:"),
        `timeout_seconds ${JSON.stringify(timeout)} should be refused as an invalid argument`,
      );
    }

    const without = await call(1_000, { command: "true" });
    assert.equal(without.ok, true, "timeout_seconds is optional: without it, the user's applies");
  } finally {
    await rm(cwd, { recursive: true, force: true });
  }
}
