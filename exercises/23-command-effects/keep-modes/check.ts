// Exercise "Keep the modes": a file a command (or a patch) deleted comes back from undo with the
// permissions it had before the run, so an executable script stays executable; a file that still
// exists keeps the permissions it has now, as before.
import assert from "node:assert/strict";
import { chmod, mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

interface Outcome {
  exitCode: number | null;
  signal: null;
  timedOut: boolean;
  aborted: boolean;
  durationMs: number;
  output: string;
}
interface Ledger {
  runId: string;
  finish(reason: string): Promise<void>;
}
interface LedgerModule {
  RunLedger: { open(cwd: string, start: { task: string; model: string }): Promise<Ledger> };
}
interface TrackModule {
  trackCommand(
    ledger: Ledger,
    root: string,
    command: string,
    run: () => Promise<Outcome>,
    sandbox: string,
  ): Promise<unknown>;
}
interface ToolsModule {
  runToolCall(
    tools: unknown[],
    call: { id: string; function: { name: string; arguments: string } },
    context: { cwd: string; signal: AbortSignal; ledger: Ledger },
  ): Promise<{ ok: boolean; content: string }>;
}
interface UndoModule {
  undoRun(cwd: string, runId: string): Promise<{ restored: string[] }>;
}

const load = <T>(chapterDir: string, file: string) =>
  import(pathToFileURL(join(chapterDir, file)).href) as Promise<T>;

export default async function check(chapterDir: string): Promise<void> {
  const { RunLedger } = await load<LedgerModule>(chapterDir, "src/ledger/run-ledger.ts");
  const { trackCommand } = await load<TrackModule>(chapterDir, "src/commands/track-command.ts");
  const { undoRun } = await load<UndoModule>(chapterDir, "src/ledger/undo.ts");
  const { runToolCall } = await load<ToolsModule>(chapterDir, "src/tools/run-tool-call.ts");
  const { readFileTool } = await load<{ readFileTool: unknown }>(
    chapterDir,
    "src/tools/read-file.ts",
  );
  const { applyPatchTool } = await load<{ applyPatchTool: unknown }>(
    chapterDir,
    "src/tools/apply-patch-tool.ts",
  );

  const root = await mkdtemp(join(tmpdir(), "keep-modes-"));
  const at = (name: string) => join(root, name);
  const modeOf = async (name: string) => ((await stat(at(name))).mode & 0o777).toString(8);
  try {
    await writeFile(at("run.sh"), "#!/bin/sh\necho run\n");
    await chmod(at("run.sh"), 0o755);
    await writeFile(at("secret-ish.txt"), "only mine\n");
    await chmod(at("secret-ish.txt"), 0o600);
    await writeFile(at("tool.sh"), "#!/bin/sh\necho tool\n");
    await chmod(at("tool.sh"), 0o755);

    const ledger = await RunLedger.open(root, { task: "clean up", model: "test" });
    // "git clean"-like: deletes two files and rewrites a third (which keeps its inode and mode).
    await trackCommand(
      ledger,
      root,
      "./clean.sh",
      async () => {
        await rm(at("run.sh"));
        await rm(at("secret-ish.txt"));
        await writeFile(at("tool.sh"), "#!/bin/sh\necho changed\n");
        return {
          exitCode: 0,
          signal: null,
          timedOut: false,
          aborted: false,
          durationMs: 1,
          output: "",
        };
      },
      "none",
    );
    await ledger.finish("done");
    // The person made tool.sh private after the run: undo restores its bytes, not an old mode.
    await chmod(at("tool.sh"), 0o700);

    const result = await undoRun(root, ledger.runId);
    assert.deepEqual(
      [...result.restored].sort(),
      ["run.sh", "secret-ish.txt", "tool.sh"],
      "undo should restore the three files the command changed",
    );
    assert.equal(
      await modeOf("run.sh"),
      "755",
      "run.sh was executable (755) before the command deleted it; undo should bring it back executable",
    );
    assert.equal(
      await modeOf("secret-ish.txt"),
      "600",
      "secret-ish.txt was private (600) before the command deleted it; undo should not make it readable by all",
    );
    assert.equal(
      await modeOf("tool.sh"),
      "700",
      "a file that still exists keeps the mode it has now (chapter 15's rule): tool.sh should stay 700",
    );

    // A patch that deletes an executable: its backup is made by apply_patch, not by a snapshot.
    await chmod(at("run.sh"), 0o750);
    const patchRun = await RunLedger.open(root, { task: "remove run.sh", model: "test" });
    const call = (name: string, args: object) =>
      runToolCall(
        [readFileTool, applyPatchTool],
        { id: name, function: { name, arguments: JSON.stringify(args) } },
        { cwd: root, signal: new AbortController().signal, ledger: patchRun },
      );
    await call("read_file", { path: "run.sh" });
    const deleted = await call("apply_patch", {
      patch: "*** Begin Patch\n*** Delete File: run.sh\n*** End Patch\n",
    });
    assert.equal(deleted.ok, true, `the patch should delete run.sh: ${deleted.content}`);
    await patchRun.finish("done");
    await undoRun(root, patchRun.runId);
    assert.equal(
      await modeOf("run.sh"),
      "750",
      "run.sh was 750 before a patch deleted it; undo should bring it back with that mode",
    );
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
