// Exercise "Network for one command": `--allow-network C` lets the command C (exact text) reach
// the network in the sandbox, and only C. It is still allowed or asked like any other command,
// and the question says that it will have the network.
import assert from "node:assert/strict";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

interface WrapOptions {
  network?: boolean;
}
interface Sandbox {
  name: string;
  wrap(argv: string[], workspace: string, options?: WrapOptions): string[];
}
interface Policy {
  mode: "ask" | "allow-list" | "deny";
  allowed: readonly string[];
  network?: readonly string[];
}
type Decision = "approved" | "declined" | "no_terminal";
type CommandApprover = (
  command: string,
  cwd: string,
  signal: AbortSignal,
  network?: boolean,
) => Promise<Decision>;
interface CommandEvent {
  type: "command";
  command: string;
  sandbox: string;
}
interface Ledger {
  events(): readonly { type: string }[];
  finish(reason: string): Promise<void>;
}
interface Tool {
  execute(
    args: { command: string },
    context: { cwd: string; signal: AbortSignal; ledger: Ledger },
  ): Promise<{ ok: boolean; content: string }>;
}
interface Modules {
  cli: { parseCommandLine(argv: string[]): { kind: string; allowNetwork?: string[] } };
  approval: {
    createCommandApprover(options: {
      yes: boolean;
      interactive: boolean;
      ask: (question: string, signal: AbortSignal) => Promise<string>;
    }): CommandApprover;
  };
  sandbox: { bubblewrap: Sandbox };
  ledger: { RunLedger: { open(cwd: string, start: object): Promise<Ledger> } };
  tool: {
    runCommandTool(settings: {
      policy: Policy;
      approver: CommandApprover;
      sandbox: Sandbox | undefined;
      timeoutMs: number;
      secrets: readonly string[];
    }): Tool;
  };
}

async function load(chapterDir: string): Promise<Modules> {
  const from = (file: string) => import(pathToFileURL(join(chapterDir, file)).href);
  return {
    cli: await from("src/loop/cli-args.ts"),
    approval: await from("src/commands/command-approval.ts"),
    sandbox: await from("src/commands/sandbox.ts"),
    ledger: await from("src/ledger/run-ledger.ts"),
    tool: await from("src/tools/run-command-tool.ts"),
  } as Modules;
}

export default async function check(chapterDir: string): Promise<void> {
  const { cli, approval, sandbox, ledger, tool } = await load(chapterDir);

  let parsed: { kind: string; allowNetwork?: string[] };
  try {
    parsed = cli.parseCommandLine([
      "--allow-network",
      " npm ci ",
      "--allow-network",
      "pip install -r r.txt",
      "task",
    ]);
  } catch (error) {
    assert.fail(`--allow-network C should be an option, repeatable: ${(error as Error).message}`);
  }
  assert.deepEqual(
    parsed.allowNetwork,
    ["npm ci", "pip install -r r.txt"],
    "parseCommandLine should return the --allow-network commands, trimmed, as allowNetwork",
  );

  const root = await realpath(await mkdtemp(join(tmpdir(), "one-command-")));
  try {
    assert.ok(
      sandbox.bubblewrap.wrap(["true"], root).includes("--unshare-net"),
      "by default the sandbox has no network",
    );
    assert.ok(
      !sandbox.bubblewrap.wrap(["true"], root, { network: true }).includes("--unshare-net"),
      "bubblewrap.wrap(argv, workspace, { network: true }) should leave out --unshare-net",
    );
    assert.ok(
      sandbox.bubblewrap.wrap(["true"], root, { network: true }).includes("--unshare-pid"),
      "with the network, everything else stays as it was",
    );

    const questions: string[] = [];
    const ask = async (question: string) => (questions.push(question), "y");
    const person = approval.createCommandApprover({ yes: false, interactive: true, ask });
    const signal = new AbortController().signal;
    await person("npm ci", root, signal, true);
    assert.match(
      questions.at(-1) ?? "",
      /with network access/,
      `the question should say the command gets the network: "Run \`npm ci\` in ${root} with network access? [y/N] " (got "${questions.at(-1)}")`,
    );
    await person("node check.mjs", root, signal, false);
    assert.doesNotMatch(
      questions.at(-1) ?? "",
      /network access/,
      "other commands are asked as before",
    );

    // A stand-in for bubblewrap that records what it was asked for and runs the command as is.
    const wrapped: WrapOptions[] = [];
    const fake: Sandbox = {
      name: "fake",
      wrap: (argv, _workspace, options) => (wrapped.push(options ?? {}), argv),
    };
    const approverCalls: { command: string; network?: boolean }[] = [];
    const run = tool.runCommandTool({
      policy: { mode: "ask", allowed: ["true"], network: ["echo fetched"] },
      approver: async (command, _cwd, _signal, network) => {
        approverCalls.push({ command, network });
        return "approved";
      },
      sandbox: fake,
      timeoutMs: 10_000,
      secrets: [],
    });
    const runLedger = await ledger.RunLedger.open(root, { task: "install", model: "test" });
    const context = { cwd: root, signal, ledger: runLedger };

    assert.equal((await run.execute({ command: "echo fetched" }, context)).ok, true);
    assert.equal(wrapped.at(-1)?.network, true, "`echo fetched` was given the network");
    assert.deepEqual(
      approverCalls,
      [{ command: "echo fetched", network: true }],
      "a command with the network that is not allowed is still asked, and the approver is told about the network",
    );

    assert.equal((await run.execute({ command: "true" }, context)).ok, true);
    assert.notEqual(wrapped.at(-1)?.network, true, "a command not listed gets no network");
    assert.equal(approverCalls.length, 1, "an allowed command still runs without asking");

    const events = runLedger.events().filter((e): e is CommandEvent => e.type === "command");
    await runLedger.finish("done");
    assert.match(
      events[0]?.sandbox ?? "",
      /network/,
      `the ledger should say which command had the network (its sandbox field, e.g. "fake, with network"; got "${events[0]?.sandbox}")`,
    );
    assert.doesNotMatch(events[1]?.sandbox ?? "", /network/);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
