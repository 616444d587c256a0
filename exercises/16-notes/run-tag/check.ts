// Exercise "Which run wrote this?": every patch note apply_patch leaves is tagged run-<runId>, so
// the notes of one run can be listed or searched; a patch note without a run has no such tag.
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

interface NoteMeta {
  id: string;
  title: string;
  tags: string[];
}

interface NoteStore {
  list(filter?: { tag?: string }): Promise<NoteMeta[]>;
}

interface StoreModule {
  NoteStore: new (cwd: string) => NoteStore;
}

interface Ledger {
  readonly runId: string;
  close(): Promise<void>;
}

interface LedgerModule {
  RunLedger: { open(cwd: string, info: { task: string; model: string }): Promise<Ledger> };
}

interface ToolsModule {
  runToolCall(
    tools: readonly unknown[],
    call: { id: string; function: { name: string; arguments: string } },
    context: { cwd: string; signal: AbortSignal; ledger?: Ledger; notes?: NoteStore },
  ): Promise<{ ok: boolean; content: string }>;
}

interface PatchNotesModule {
  writePatchNote(
    store: NoteStore,
    attempt: {
      userInput: string;
      patch: string;
      outcome: {
        success: boolean;
        changed: { op: string; path: string }[];
        failures: { path: string; code: string; message: string }[];
      };
    },
  ): Promise<NoteMeta>;
}

async function load<T>(chapterDir: string, path: string): Promise<T> {
  return (await import(pathToFileURL(join(chapterDir, path)).href)) as T;
}

const UPDATE_A = "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+ONE\n*** End Patch\n";
const ADD_B = "*** Begin Patch\n*** Add File: b.txt\n+two\n*** End Patch\n";

export default async function check(chapterDir: string): Promise<void> {
  const { NoteStore } = await load<StoreModule>(chapterDir, "src/notes/note-store.ts");
  const { RunLedger } = await load<LedgerModule>(chapterDir, "src/ledger/run-ledger.ts");
  const { runToolCall } = await load<ToolsModule>(chapterDir, "src/tools/run-tool-call.ts");
  const { applyPatchTool } = await load<{ applyPatchTool: unknown }>(
    chapterDir,
    "src/tools/apply-patch-tool.ts",
  );
  const { writePatchNote } = await load<PatchNotesModule>(chapterDir, "src/notes/patch-notes.ts");
  const cwd = await mkdtemp(join(tmpdir(), "run-tag-"));
  const ledger = await RunLedger.open(cwd, { task: "Shout the numbers", model: "test" });
  try {
    await writeFile(join(cwd, "a.txt"), "one\n");
    const notes = new NoteStore(cwd);
    const context = { cwd, signal: new AbortController().signal, ledger, notes };
    const patch = (text: string) =>
      runToolCall(
        [applyPatchTool],
        {
          id: "call",
          function: { name: "apply_patch", arguments: JSON.stringify({ patch: text }) },
        },
        context,
      );
    // Not read first: refused with not_read, a "Patch failed" note. A new file: "Patch applied".
    await patch(UPDATE_A);
    await patch(ADD_B);

    const tag = `run-${ledger.runId}`;
    const all = await notes.list();
    assert.deepEqual(
      all.map((note) => note.title),
      ["Patch failed", "Patch applied"],
      "the two patches should leave two notes (the chapter's own behaviour)",
    );
    for (const note of all) {
      assert.ok(
        note.tags.includes(tag),
        `the "${note.title}" note should be tagged ${tag}, the run that sent the patch; its tags: ${note.tags.join(", ")}`,
      );
    }
    assert.ok(
      all[0]!.tags.includes("not_read"),
      "the failure's error code stays a tag, next to the run's",
    );
    assert.equal(
      (await notes.list({ tag })).length,
      2,
      `list with tag ${tag} should find both notes`,
    );

    const noRun = await writePatchNote(notes, {
      userInput: "by hand",
      patch: ADD_B,
      outcome: { success: true, changed: [{ op: "add", path: "b.txt" }], failures: [] },
    });
    assert.deepEqual(
      noRun.tags,
      ["patch"],
      "a patch note without a run id (no ledger) should have no run tag",
    );
  } finally {
    await ledger.close();
    await rm(cwd, { recursive: true, force: true });
  }
}
