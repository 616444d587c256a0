// Exercise "Read-only commands": AGENTS.md can mark a command read-only (`read-only-command: C`).
// In the sandbox such a command gets the workspace read-only too, and runs without snapshots,
// because the kernel keeps it from writing; without a sandbox it is snapshotted like any other.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

interface Sandbox {
  name: string;
  wrap(argv: string[], workspace: string, options?: { readOnly?: boolean }): string[];
}
interface Policy {
  mode: "ask" | "allow-list" | "deny";
  allowed: readonly string[];
  readOnly?: readonly string[];
}
interface CommandEvent {
  type: "command";
  command: string;
  changes: unknown[];
}
interface Ledger {
  runId: string;
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
  policy: { readOnlyInAgentsMd?: (text: string) => string[] };
  sandbox: { bubblewrap: Sandbox; findSandbox(): Promise<Sandbox | undefined> };
  ledger: { RunLedger: { open(cwd: string, start: object): Promise<Ledger> } };
  tool: {
    runCommandTool(settings: {
      policy: Policy;
      approver: () => Promise<"approved">;
      sandbox: Sandbox | undefined;
      timeoutMs: number;
      secrets: readonly string[];
    }): Tool;
  };
}

async function load(chapterDir: string): Promise<Modules> {
  const from = (file: string) => import(pathToFileURL(join(chapterDir, file)).href);
  return {
    policy: await from("src/commands/command-policy.ts"),
    sandbox: await from("src/commands/sandbox.ts"),
    ledger: await from("src/ledger/run-ledger.ts"),
    tool: await from("src/tools/run-command-tool.ts"),
  } as Modules;
}

export default async function check(chapterDir: string): Promise<void> {
  const { policy, sandbox, ledger, tool } = await load(chapterDir);

  assert.equal(
    typeof policy.readOnlyInAgentsMd,
    "function",
    "src/commands/command-policy.ts should export readOnlyInAgentsMd(text), like allowedInAgentsMd",
  );
  assert.deepEqual(
    policy.readOnlyInAgentsMd!(
      "# Notes\n- allow-command: `git status`\n- read-only-command: `git status`\nread-only-command: ls\n",
    ),
    ["git status", "ls"],
    "readOnlyInAgentsMd should read the `read-only-command: C` lines, as list items or not, in backticks or not",
  );

  const root = await realpath(await mkdtemp(join(tmpdir(), "read-only-")));
  try {
    const wrapped = sandbox.bubblewrap.wrap(["true"], root, { readOnly: true }).join(" ");
    assert.ok(
      wrapped.includes(`--ro-bind ${root} ${root}`) && !wrapped.includes(`--bind ${root} ${root}`),
      `bubblewrap.wrap(argv, workspace, { readOnly: true }) should mount the workspace with --ro-bind, not --bind: ${wrapped}`,
    );
    assert.ok(
      sandbox.bubblewrap.wrap(["true"], root).join(" ").includes(`--bind ${root} ${root}`),
      "without { readOnly: true } the workspace stays writable",
    );

    await writeFile(join(root, "a.txt"), "a\n");
    // A stand-in for bubblewrap that records what it was asked for and runs the command as is.
    const asked: { readOnly?: boolean }[] = [];
    const fake: Sandbox = {
      name: "fake",
      wrap: (argv, _workspace, options) => (asked.push(options ?? {}), argv),
    };
    const rules = {
      policy: {
        mode: "allow-list" as const,
        allowed: ["cat a.txt", "wc -l a.txt"],
        readOnly: ["cat a.txt"],
      },
      approver: async () => "approved" as const,
      timeoutMs: 10_000,
      secrets: [],
    };
    const backupsOf = (run: Ledger) => join(root, ".agent", "backups", run.runId);
    const run = async (box: Sandbox | undefined, command: string) => {
      const runLedger = await ledger.RunLedger.open(root, { task: "look", model: "test" });
      const result = await tool
        .runCommandTool({ ...rules, sandbox: box })
        .execute(
          { command },
          { cwd: root, signal: new AbortController().signal, ledger: runLedger },
        );
      await runLedger.finish("done");
      assert.equal(result.ok, true, `\`${command}\` should run: ${result.content}`);
      return runLedger;
    };

    const readOnly = await run(fake, "cat a.txt");
    assert.deepEqual(
      asked.at(-1),
      { readOnly: true },
      "a read-only command should reach the sandbox's wrap with { readOnly: true }",
    );
    assert.equal(
      existsSync(backupsOf(readOnly)),
      false,
      "a read-only command in the sandbox should run without snapshots: nothing backed up in .agent/backups/<run>",
    );
    const event = readOnly.events().find((e): e is CommandEvent => e.type === "command");
    assert.deepEqual(event?.changes, [], "the ledger still records the command, with no changes");

    const other = await run(fake, "wc -l a.txt");
    assert.notEqual(asked.at(-1)?.readOnly, true, "a command not marked read-only can write");
    assert.equal(
      existsSync(backupsOf(other)),
      true,
      "a command not marked read-only is snapshotted and backed up as before",
    );

    const unconfined = await run(undefined, "cat a.txt");
    assert.equal(
      existsSync(backupsOf(unconfined)),
      true,
      "without a sandbox nothing keeps a read-only command from writing: snapshot it anyway",
    );

    // With the real bubblewrap (where it works), the kernel keeps the promise.
    const real = await sandbox.findSandbox();
    if (real !== undefined) {
      const runLedger = await ledger.RunLedger.open(root, { task: "write", model: "test" });
      const result = await tool
        .runCommandTool({
          ...rules,
          policy: { ...rules.policy, allowed: ["echo b > a.txt"], readOnly: ["echo b > a.txt"] },
          sandbox: real,
        })
        .execute(
          { command: "echo b > a.txt" },
          { cwd: root, signal: new AbortController().signal, ledger: runLedger },
        );
      await runLedger.finish("done");
      assert.equal(result.ok, false, "a read-only command that writes should fail");
      assert.match(result.content, /Read-only file system/);
      assert.equal(await readFile(join(root, "a.txt"), "utf8"), "a\n");
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
