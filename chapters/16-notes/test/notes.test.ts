import { spawnSync } from "node:child_process";
import {
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  realpath,
  rm,
  symlink,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseNote, serializeNote } from "../src/notes/note.ts";
import type { Note } from "../src/notes/note.ts";
import { NoteStore } from "../src/notes/note-store.ts";
import { writePatchNote } from "../src/notes/patch-notes.ts";

let cwd: string;
let store: NoteStore;
let tick: number;
beforeEach(async () => {
  cwd = await mkdtemp(join(tmpdir(), "notes-"));
  tick = 0;
  // A clock that advances one second per call keeps "most recent" deterministic.
  store = new NoteStore(cwd, () => new Date(Date.UTC(2025, 0, 31, 12, 0, tick++)));
});
afterEach(async () => {
  await rm(cwd, { recursive: true, force: true });
});

describe("note files", () => {
  it("round-trips front matter and body, including awkward text", () => {
    const note: Note = {
      id: "0001-x",
      title: 'Fix: the "quoted" — title',
      type: "conclusion",
      tags: ["2024", "yes", "a b"],
      created_at: "2025-01-31T12:00:00.000Z",
      updated_at: "2025-01-31T12:00:01.000Z",
      body: "First line\n---\nnot front matter\n",
    };
    const text = serializeNote(note);
    expect(text.startsWith("---\nid: 0001-x\n")).toBe(true);
    expect(parseNote(text, "x.md")).toEqual(note);
  });

  it("explains a broken note file", () => {
    expect(() => parseNote("just text", "n.md")).toThrow(
      'n.md has no YAML front matter. A note starts with a "---" line, the fields, and another "---" line.',
    );
    expect(() =>
      parseNote(
        "---\nid: 0001-a\ntitle: t\ntype: idea\ntags: []\ncreated_at: x\nupdated_at: x\n---\n",
        "n.md",
      ),
    ).toThrow(/^n\.md has invalid front matter: type: /);
  });
});

describe("NoteStore", () => {
  it("creates a Markdown file with front matter and an index entry", async () => {
    const note = await store.create({
      title: "Where I am",
      type: "task_state",
      tags: ["Parser", "parser"],
      body: "Step 2 of 3.\n",
    });
    expect(note).toEqual({
      id: "0001-where-i-am",
      title: "Where I am",
      type: "task_state",
      tags: ["parser"],
      created_at: "2025-01-31T12:00:00.000Z",
      updated_at: "2025-01-31T12:00:00.000Z",
      body: "Step 2 of 3.\n",
    });
    const file = await readFile(join(cwd, ".agent", "notes", "0001-where-i-am.md"), "utf8");
    expect(file).toBe(
      [
        "---",
        "id: 0001-where-i-am",
        "title: Where I am",
        "type: task_state",
        "tags:",
        "  - parser",
        "created_at: 2025-01-31T12:00:00.000Z",
        "updated_at: 2025-01-31T12:00:00.000Z",
        "---",
        "Step 2 of 3.",
        "",
      ].join("\n"),
    );
    const index = JSON.parse(
      await readFile(join(cwd, ".agent", "notes", "index.json"), "utf8"),
    ) as unknown;
    expect(index).toEqual({
      next_number: 2,
      notes: [expect.objectContaining({ id: "0001-where-i-am" })],
    });
  });

  it("reads, updates, appends and deletes; ids are never reused", async () => {
    const first = await store.create({ title: "Log", body: "one" });
    expect(first.type).toBe("general");
    expect((await store.read("1")).id).toBe("0001-log");

    const updated = await store.update(first.id, { append: "two", tags: ["log"] });
    expect(updated.body).toBe("one\n\ntwo\n");
    expect(updated.tags).toEqual(["log"]);
    expect(updated.created_at).toBe(first.created_at);
    expect(updated.updated_at).not.toBe(first.updated_at);
    expect(await store.read(first.id)).toEqual(updated);

    await store.delete(first.id);
    expect(await store.list()).toEqual([]);
    const second = await store.create({ title: "Log", body: "again" });
    expect(second.id).toBe("0002-log");
  });

  it("takes a note's number before writing the note, so a write that dies cannot reuse it", async () => {
    await store.create({ title: "First", body: "one" });
    // A folder where the second note's file goes makes its write fail after the number is taken,
    // as a crash between the note and the index would.
    await mkdir(join(cwd, ".agent", "notes", "0002-second.md"));
    await expect(store.create({ title: "Second", body: "two" })).rejects.toThrow();
    await rm(join(cwd, ".agent", "notes", "0002-second.md"), { recursive: true });
    expect((await store.create({ title: "Second", body: "two" })).id).toBe("0003-second");
  });

  it("removes the temp files a crashed note write left: only its own kind, only of a dead process", async () => {
    const dir = join(cwd, ".agent", "notes");
    await mkdir(dir, { recursive: true });
    const deadPid = spawnSync(process.execPath, ["-e", ""]).pid!;
    const names = {
      dead: `.0001-first.md.${deadPid}-0123456789ab.agent-tmp`,
      running: `.index.json.${process.ppid}-0123456789ab.agent-tmp`,
      notOurs: ".index.json.123-notrandom.agent-tmp",
    };
    for (const name of Object.values(names)) await writeFile(join(dir, name), "partial");
    await store.create({ title: "First", body: "one" });
    expect((await readdir(dir)).sort()).toEqual(
      ["0001-first.md", "index.json", names.running, names.notOurs].sort(),
    );
  });

  it("names the existing ids when an id is unknown", async () => {
    await expect(store.read("0099-nope")).rejects.toThrow(
      'Note "0099-nope" not found: there are no notes yet. Create one with action "create".',
    );
    await store.create({ title: "A", body: "" });
    await store.create({ title: "B", body: "" });
    await expect(store.update("0009", { body: "x" })).rejects.toThrow(
      'Note "0009" not found. Existing note ids: 0001-a, 0002-b.',
    );
  });

  it("refuses to write notes through a symlinked .agent/", async () => {
    const outside = await mkdtemp(join(tmpdir(), "notes-outside-"));
    await symlink(outside, join(cwd, ".agent"));
    await expect(store.create({ title: "A", body: "" })).rejects.toThrow(
      `${await realpath(cwd)}/.agent is a symbolic link to ${outside}`,
    );
    expect(await readdir(outside)).toEqual([]);
    await rm(outside, { recursive: true });
  });

  it("lists with filters and searches title, tags and body", async () => {
    await store.create({
      title: "Parser bug",
      type: "blocker",
      tags: ["parser"],
      body: "Crashes on empty input.\nSee parse().",
    });
    await store.create({ title: "Tokenizer", type: "reference", body: "Uses o200k_base." });
    await store.create({
      title: "Decision",
      type: "conclusion",
      tags: ["parser"],
      body: "Keep the recursive descent parser.",
    });

    expect((await store.list({ type: "blocker" })).map((meta) => meta.id)).toEqual([
      "0001-parser-bug",
    ]);
    expect((await store.list({ tag: "Parser" })).map((meta) => meta.id)).toEqual([
      "0001-parser-bug",
      "0003-decision",
    ]);

    const hits = await store.search("EMPTY parser");
    expect(hits.map((hit) => [hit.note.id, hit.excerpt])).toEqual([
      ["0001-parser-bug", "Crashes on empty input."],
    ]);
    expect(
      (await store.search("parser", { type: "conclusion" })).map((hit) => hit.note.id),
    ).toEqual(["0003-decision"]);
    expect(await store.search("nothing-like-this")).toEqual([]);
  });

  it("rebuilds a lost index from the note files", async () => {
    await store.create({ title: "Kept", body: "x" });
    await writeFile(join(cwd, ".agent", "notes", "index.json"), "{broken");
    const fresh = new NoteStore(cwd);
    expect((await fresh.list()).map((meta) => meta.id)).toEqual(["0001-kept"]);
    expect((await fresh.create({ title: "Next", body: "" })).id).toBe("0002-next");
  });

  it("summarises: counts, latest task state, blockers, recent notes", async () => {
    expect(await store.summary()).toBe("No notes yet.");
    await store.create({ title: "Plan", type: "task_state", body: "Old plan." });
    await store.create({ title: "Stuck", type: "blocker", body: "x" });
    await store.create({ title: "Progress", type: "task_state", body: "Tests pass; docs left." });
    expect(await store.summary()).toBe(
      [
        "3 notes: 2 task_state, 1 blocker.",
        "",
        "Latest task state (0003-progress, updated 2025-01-31T12:00:02.000Z):",
        "Tests pass; docs left.",
        "",
        "Blockers:",
        "- 0002-stuck [blocker] Stuck",
        "",
        "Most recent:",
        "- 0003-progress [task_state] Progress",
        "- 0002-stuck [blocker] Stuck",
        "- 0001-plan [task_state] Plan",
      ].join("\n"),
    );
  });
});

describe("patch notes", () => {
  it('writes an action note "Patch applied" with user input, files and patch', async () => {
    const patch =
      "*** Begin Patch\n*** Update File: README.md\n@@\n-```js\n+```ts\n*** End Patch\n";
    const note = await writePatchNote(store, {
      userInput: "Use TypeScript in the README example",
      patch,
      outcome: {
        success: true,
        changed: [
          { op: "update", path: "README.md" },
          { op: "add", path: "src/new.ts" },
        ],
        failures: [],
      },
    });
    expect(note.title).toBe("Patch applied");
    expect(note.type).toBe("action");
    expect(note.tags).toEqual(["patch"]);
    expect(note.body).toBe(
      [
        "## User input",
        "",
        "Use TypeScript in the README example",
        "",
        "## Files",
        "",
        "- M README.md",
        "- A src/new.ts",
        "",
        "## Patch",
        "",
        // Longer fence than the ``` inside the patch.
        "````patch",
        patch.trimEnd(),
        "````",
        "",
      ].join("\n"),
    );
  });

  it('writes a blocker note "Patch failed" with the error, user input and patch', async () => {
    const note = await writePatchNote(store, {
      userInput: "Rename foo",
      patch: "*** Begin Patch\n*** Update File: a.ts\n-foo\n+bar\n*** End Patch",
      outcome: {
        success: false,
        changed: [{ op: "update", path: "b.ts" }],
        failures: [
          {
            path: "a.ts",
            code: "file_changed",
            message: "a.ts changed since you read it.",
            hint: "Read a.ts again.",
          },
        ],
      },
    });
    expect(note.title).toBe("Patch failed");
    expect(note.type).toBe("blocker");
    expect(note.tags).toEqual(["patch", "file_changed"]);
    expect(note.body).toBe(
      [
        "## Error",
        "",
        "- a.ts: file_changed: a.ts changed since you read it.",
        "  Hint: Read a.ts again.",
        "",
        "## Applied anyway",
        "",
        "- M b.ts",
        "",
        "## User input",
        "",
        "Rename foo",
        "",
        "## Patch",
        "",
        "```patch",
        "*** Begin Patch\n*** Update File: a.ts\n-foo\n+bar\n*** End Patch",
        "```",
        "",
      ].join("\n"),
    );
    expect((await store.search("file_changed")).map((hit) => hit.note.id)).toEqual([note.id]);
  });
});
