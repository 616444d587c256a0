// run_command as a person runs it: the command line and AGENTS.md decide the policy, `main` builds
// the tool, the offline model (through the real SDK) asks for the command, and the ledger, the
// report and the tool result the model read are checked. Under vitest stdin is not a terminal,
// so a question is never shown: the answer is "no terminal".
import { existsSync } from "node:fs";
import { appendFile, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { copyDemoRepo } from "@build-agent/shared/demo-repo";
import { loadScript, startOfflineModel, type Script } from "@build-agent/shared/offline-model";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { CommandEvent, ToolCallEvent } from "../src/ledger/ledger-events.ts";
import { listRuns, RunLedger } from "../src/ledger/run-ledger.ts";
import { parseCommandLine, USAGE, UsageError } from "../src/loop/cli-args.ts";
import { main } from "../src/main.ts";

const TASK = "Check the project.";

describe("the command line's command options", () => {
  const run = (...argv: string[]) => {
    const command = parseCommandLine([...argv, TASK]);
    if (command.kind !== "run") throw new Error(`expected a run, got ${command.kind}`);
    return command;
  };

  it("asks by default, allows nothing, and kills a command after two minutes", () => {
    expect(run()).toMatchObject({ commands: "ask", allowCommands: [], commandTimeoutMs: 120_000 });
  });

  it("reads a mode, repeated --allow-command (trimmed), and a timeout in seconds or minutes", () => {
    expect(
      run(
        "--commands",
        "allow-list",
        "--allow-command",
        " node check.mjs ",
        "--allow-command=pnpm test",
      ),
    ).toMatchObject({ commands: "allow-list", allowCommands: ["node check.mjs", "pnpm test"] });
    expect(run("--commands", "deny").commands).toBe("deny");
    expect(run("--command-timeout", "90").commandTimeoutMs).toBe(90_000);
    expect(run("--command-timeout", "45s").commandTimeoutMs).toBe(45_000);
    expect(run("--command-timeout", "5m").commandTimeoutMs).toBe(300_000);
  });

  it("refuses a mode or a timeout it does not know, with what it takes", () => {
    expect(() => run("--commands", "sometimes")).toThrow(
      new UsageError('--commands must be ask, allow-list, deny, got "sometimes"'),
    );
    expect(() => run("--command-timeout", "forever")).toThrow(
      new UsageError(
        '--command-timeout must be seconds or minutes like 90, 90s or 5m, got "forever"',
      ),
    );
    expect(() => run("--command-timeout", "0")).toThrow(UsageError);
    expect(USAGE).toContain("--commands MODE");
    expect(USAGE).toContain("--allow-command C");
    expect(USAGE).toContain("--command-timeout T");
  });
});

let workspace: string;
beforeEach(async () => {
  workspace = await copyDemoRepo("ch22-commands-");
  vi.stubEnv("NO_COLOR", "1");
});
afterEach(async () => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
  await rm(workspace, { recursive: true, force: true });
});

/** A model that runs one command, reads the result and finishes. */
function runsOneCommand(command: string): Script {
  return {
    name: "run-one-command",
    description: "Test script (no AI): runs one command with run_command, then answers.",
    steps: [
      {
        expect: { lastMessageRole: "user" },
        reply: {
          content: "Running it.",
          toolCalls: [
            { id: "call_run", name: "run_command", arguments: JSON.stringify({ command }) },
          ],
        },
      },
      { expect: { toolResultFor: "call_run" }, reply: { content: "Done." } },
    ],
  };
}

interface AgentRun {
  code: number;
  stdout: string;
  stderr: string;
  commands: CommandEvent[];
  toolCalls: ToolCallEvent[];
  /** What the model read as the result of each tool call, by call id. */
  read: Map<string, string>;
}

/** `pnpm start -- ARGS --repo WORKSPACE "Check the project."` against a scripted model. */
async function runAgent(
  script: Script,
  args: string[],
  apiKey = "local-test-key",
): Promise<AgentRun> {
  const offline = await startOfflineModel({ script, apiKey });
  vi.stubEnv("OPENAI_BASE_URL", offline.baseURL);
  vi.stubEnv("OPENAI_API_KEY", apiKey);
  vi.stubEnv("AGENT_MODEL", offline.model);
  let stdout = "";
  let stderr = "";
  const out = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
    stdout += String(chunk);
    return true;
  });
  const err = vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  });
  const before = new Set((await listRuns(workspace)).map((r) => r.runId));
  let code: number;
  try {
    code = await main([...args, "--repo", workspace, TASK]);
  } finally {
    out.mockRestore();
    err.mockRestore();
    await offline.close();
  }
  const recorded = (await listRuns(workspace)).find((r) => !before.has(r.runId));
  const events = (await RunLedger.load(workspace, recorded!.runId)).events();
  const read = new Map<string, string>();
  for (const message of offline.requests.at(-1)?.messages ?? []) {
    if (message.role === "tool" && typeof message.content === "string") {
      read.set(message.tool_call_id ?? "", message.content);
    }
  }
  return {
    code,
    stdout,
    stderr,
    commands: events.filter((e): e is CommandEvent => e.type === "command"),
    toolCalls: events.filter((e): e is ToolCallEvent => e.type === "tool_call"),
    read,
  };
}

describe("run_command in a run", () => {
  it("runs a command AGENTS.md allows, records exit code and output, and reports both runs", async () => {
    await appendFile(join(workspace, "AGENTS.md"), "\n- allow-command: `node check.mjs`\n");
    const run = await runAgent(loadScript("fix-bug-checked"), []);

    expect(run.code).toBe(0);
    expect(run.stderr).toContain("commands run without asking: `node check.mjs`");
    expect(run.commands).toMatchObject([
      {
        n: 1,
        command: "node check.mjs",
        exit_code: 1,
        signal: null,
        timed_out: false,
        aborted: false,
      },
      {
        n: 2,
        command: "node check.mjs",
        exit_code: 0,
        signal: null,
        timed_out: false,
        aborted: false,
      },
    ]);
    expect(run.commands[0]!.output).toContain(
      "FAIL total with a $5.00 coupon and 20% tax: expected $24.00, got $25.00",
    );
    expect(run.commands[1]!.output).toContain("all checks passed (7)");
    // The model reads how it ended first, then what it printed.
    expect(run.read.get("call_check_before")).toMatch(
      /^exit 1 after \d+\.\d s: node check\.mjs\nFAIL total with a \$5\.00 coupon/,
    );
    expect(run.read.get("call_check_after")).toMatch(/^exit 0 after \d+\.\d s: node check\.mjs\n/);
    expect(run.toolCalls.filter((c) => c.tool === "run_command")).toMatchObject([
      { call_id: "call_check_before", outcome: "error", code: "exit_code" },
      { call_id: "call_check_after", outcome: "ok" },
    ]);
    expect(run.stdout).toContain(
      "\ncommands run: node check.mjs → exit 1; node check.mjs → exit 0\n",
    );
  });

  it("with no terminal to ask, refuses a command nobody allowed, and it does not run", async () => {
    const run = await runAgent(runsOneCommand("touch ran.txt"), []);

    expect(existsSync(join(workspace, "ran.txt"))).toBe(false);
    expect(run.read.get("call_run")).toBe(
      "Error [not_approved]: `touch ran.txt` needs the user's approval, but there is no terminal to ask, so the answer is no.\n" +
        "Hint: No command is allowed without asking. Continue without it, or finish and tell the user to allow it: --allow-command 'touch ran.txt', or --yes.",
    );
    expect(run.commands).toEqual([]);
    expect(run.toolCalls).toMatchObject([{ tool: "run_command", code: "not_approved" }]);
    expect(run.stdout).not.toContain("commands run:");
  });

  it("allows a command by its exact text only: one allowed command with more after it still asks", async () => {
    const run = await runAgent(runsOneCommand("node check.mjs; touch ran.txt"), [
      "--allow-command",
      "node check.mjs",
    ]);
    expect(existsSync(join(workspace, "ran.txt"))).toBe(false);
    expect(run.toolCalls).toMatchObject([{ tool: "run_command", code: "not_approved" }]);
    expect(run.read.get("call_run")).toContain("Allowed without asking: `node check.mjs`.");
  });

  it("runs a command allowed by --allow-command, or approved by --yes, without asking", async () => {
    const allowed = await runAgent(runsOneCommand("touch ran.txt"), [
      "--allow-command",
      "touch ran.txt",
    ]);
    expect(allowed.stderr).toContain("commands run without asking: `touch ran.txt`");
    expect(allowed.commands).toMatchObject([{ command: "touch ran.txt", exit_code: 0 }]);
    expect(existsSync(join(workspace, "ran.txt"))).toBe(true);

    await rm(join(workspace, "ran.txt"));
    const approved = await runAgent(runsOneCommand("touch ran.txt"), ["--yes"]);
    expect(approved.commands).toMatchObject([{ command: "touch ran.txt", exit_code: 0 }]);
    expect(existsSync(join(workspace, "ran.txt"))).toBe(true);
  });

  it("--commands allow-list refuses what is not allowed, and deny refuses everything", async () => {
    const listOnly = await runAgent(runsOneCommand("touch ran.txt"), [
      "--commands",
      "allow-list",
      "--yes",
    ]);
    expect(listOnly.toolCalls).toMatchObject([
      { tool: "run_command", code: "command_not_allowed" },
    ]);
    expect(listOnly.read.get("call_run")).toContain("(--commands allow-list); it did not run.");

    const denied = await runAgent(runsOneCommand("touch ran.txt"), [
      "--commands",
      "deny",
      "--allow-command",
      "touch ran.txt",
      "--yes",
    ]);
    expect(denied.toolCalls).toMatchObject([{ tool: "run_command", code: "command_not_allowed" }]);
    expect(denied.read.get("call_run")).toContain(
      "(--commands deny); `touch ran.txt` did not run.",
    );
    // Nothing runs, so nothing is said to run without asking.
    expect(denied.stderr).not.toContain("commands run without asking");
    expect(existsSync(join(workspace, "ran.txt"))).toBe(false);
    expect([...listOnly.commands, ...denied.commands]).toEqual([]);
  });

  it("kills a command at --command-timeout and says so", async () => {
    const run = await runAgent(runsOneCommand("sleep 20"), [
      "--allow-command",
      "sleep 20",
      "--command-timeout",
      "0.3",
    ]);
    expect(run.commands).toMatchObject([{ command: "sleep 20", timed_out: true, exit_code: null }]);
    expect(run.commands[0]!.duration_ms).toBeLessThan(5_000);
    expect(run.read.get("call_run")).toMatch(/^timed out after \d+\.\d s and was killed: sleep 20/);
    expect(run.toolCalls).toMatchObject([{ tool: "run_command", code: "timeout" }]);
    expect(run.stdout).toContain("\ncommands run: sleep 20 → timed out\n");
  });

  // The requirement: `env`, run by the agent, shows no key.
  it("`env` run by the agent shows no key, token or agent setting, and still has PATH", async () => {
    const key = "local-server-secret-0123456789";
    vi.stubEnv("AGENT_API_KEY", "sk-proj-abcdefghijklmnopqrstuvwxyz0123");
    vi.stubEnv("AGENT_READ_SECRETS", "1");
    vi.stubEnv("GITHUB_TOKEN", "ghp_abcdefghijklmnopqrstuvwxyz0123456789");
    // An allowed name does not make a secret value safe.
    vi.stubEnv("CI", `true ${key}`);
    const run = await runAgent(runsOneCommand("env"), ["--allow-command", "env"], key);

    expect(run.commands).toHaveLength(1);
    const printed = run.commands[0]!.output;
    const read = run.read.get("call_run") ?? "";
    expect(printed).toMatch(/^PATH=/m);
    expect(read).toMatch(/^exit 0 after \d+\.\d s: env\n/);
    for (const text of [printed, read]) {
      for (const leak of [key, "sk-proj-", "ghp_", "OPENAI_", "AGENT_", "GITHUB_TOKEN", "CI="]) {
        expect(text).not.toContain(leak);
      }
    }
  });

  it("takes the key out of what `cat .env` printed: the model, the ledger and the terminal never see it", async () => {
    const key = "sk-test-0123456789abcdefghij";
    await writeFile(join(workspace, ".env"), `OPENAI_API_KEY=${key}\n`);
    const run = await runAgent(runsOneCommand("cat .env"), ["--allow-command", "cat .env"], key);

    expect(run.read.get("call_run")).toMatch(
      /^exit 0 after \d+\.\d s: cat \.env\nOPENAI_API_KEY=\[redacted: OPENAI_API_KEY\]$/m,
    );
    expect(run.commands[0]!.output).toBe("OPENAI_API_KEY=[redacted: OPENAI_API_KEY]\n");
    const runs = join(workspace, ".agent", "runs");
    const ledgers = await Promise.all(
      (await readdir(runs)).map((f) => readFile(join(runs, f), "utf8")),
    );
    for (const text of [...ledgers, run.stdout, run.stderr]) expect(text).not.toContain(key);
  });

  it("takes the key out of every tool's result: read_file of .env with AGENT_READ_SECRETS=1", async () => {
    const key = "sk-test-0123456789abcdefghij";
    await writeFile(join(workspace, ".env"), `OPENAI_API_KEY=${key}\n`);
    vi.stubEnv("AGENT_READ_SECRETS", "1");
    const script = runsOneCommand("unused");
    script.steps[0]!.reply.toolCalls = [
      { id: "call_run", name: "read_file", arguments: JSON.stringify({ path: ".env" }) },
    ];
    const run = await runAgent(script, [], key);
    expect(run.read.get("call_run")).toContain("OPENAI_API_KEY=[redacted: OPENAI_API_KEY]");
    for (const text of [...run.read.values(), run.stdout, run.stderr]) {
      expect(text).not.toContain(key);
    }
  });
});
