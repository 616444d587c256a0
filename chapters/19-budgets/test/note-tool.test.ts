import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { NoteStore } from "../src/notes/note-store.ts";
import { toOpenAITool } from "../src/tools/define-tool.ts";
import { noteTool } from "../src/tools/note-tool.ts";
import { runToolCall } from "../src/tools/run-tool-call.ts";
import type { ToolCallResult } from "../src/tools/run-tool-call.ts";

let cwd: string;
let notes: NoteStore;
let tick: number;
beforeEach(async () => {
  cwd = await mkdtemp(join(tmpdir(), "note-tool-"));
  tick = 0;
  notes = new NoteStore(cwd, () => new Date(Date.UTC(2025, 0, 31, 12, 0, tick++)));
});
afterEach(async () => {
  await rm(cwd, { recursive: true, force: true });
});

// Drives the tool the way the harness does: JSON arguments in, text out.
function call(args: unknown): Promise<ToolCallResult> {
  return runToolCall(
    [noteTool],
    { id: "call_1", function: { name: "note", arguments: JSON.stringify(args) } },
    { cwd, signal: new AbortController().signal, notes },
  );
}

async function ok(args: Record<string, unknown>): Promise<string> {
  const result = await call(args);
  expect(result.ok).toBe(true);
  return result.content;
}

describe("note tool schema", () => {
  it("is one flat object: the action, and the fields the actions use", () => {
    const parameters = toOpenAITool(noteTool).function.parameters as {
      type: string;
      required: string[];
      properties: Record<string, { enum?: string[] }>;
    };
    expect(parameters.type).toBe("object");
    expect(parameters.required).toEqual(["action"]);
    expect(parameters.properties.action!.enum).toEqual([
      "create",
      "read",
      "update",
      "delete",
      "list",
      "search",
      "summary",
    ]);
    expect(Object.keys(parameters.properties)).toEqual([
      "action",
      "id",
      "title",
      "type",
      "tags",
      "body",
      "append",
      "query",
      "tag",
    ]);
  });
});

describe("note tool actions", () => {
  it("creates, reads, updates, lists, searches, summarises and deletes", async () => {
    expect(
      await ok({
        action: "create",
        title: "Plan",
        type: "task_state",
        tags: ["Parser"],
        body: "1. read",
      }),
    ).toBe("Created note 0001-plan (task_state): Plan");
    expect(
      await ok({
        action: "create",
        title: "Parser crash",
        type: "blocker",
        body: "Empty input crashes.",
      }),
    ).toBe("Created note 0002-parser-crash (blocker): Parser crash");
    expect(await ok({ action: "read", id: "1" })).toBe(
      [
        "---",
        "id: 0001-plan",
        "title: Plan",
        "type: task_state",
        "tags:",
        "  - parser",
        "created_at: 2025-01-31T12:00:00.000Z",
        "updated_at: 2025-01-31T12:00:00.000Z",
        "---",
        "1. read",
        "",
      ].join("\n"),
    );
    expect(await ok({ action: "update", id: "0001-plan", append: "2. patch" })).toBe(
      "Updated note 0001-plan (task_state): Plan",
    );
    expect(await ok({ action: "list" })).toBe(
      [
        "2 note(s):",
        "- 0001-plan [task_state] Plan #parser (updated 2025-01-31T12:00:02.000Z)",
        "- 0002-parser-crash [blocker] Parser crash (updated 2025-01-31T12:00:01.000Z)",
      ].join("\n"),
    );
    expect(await ok({ action: "list", type: "conclusion" })).toBe("No notes with type conclusion.");
    expect(await ok({ action: "search", query: "empty" })).toBe(
      [
        '1 note(s) match "empty":',
        "- 0002-parser-crash [blocker] Parser crash (updated 2025-01-31T12:00:01.000Z)",
        "    Empty input crashes.",
      ].join("\n"),
    );
    expect(await ok({ action: "search", query: "zebra", tag: "parser" })).toBe(
      'No notes match "zebra" with tag parser. Try fewer or other words, or action "list".',
    );
    expect(await ok({ action: "summary" })).toContain(
      "Latest task state (0001-plan, updated 2025-01-31T12:00:02.000Z):\n1. read\n\n2. patch",
    );
    expect(await ok({ action: "delete", id: "2" })).toBe(
      "Deleted note 0002-parser-crash: Parser crash",
    );
  });
});

describe("note tool without a notebook from the harness", () => {
  it("uses the workspace's .agent/notes", async () => {
    const result = await runToolCall(
      [noteTool],
      {
        id: "c",
        function: {
          name: "note",
          arguments: '{"action":"create","title":"T","body":"b"}',
        },
      },
      { cwd, signal: new AbortController().signal },
    );
    expect(result.content).toBe("Created note 0001-t (general): T");
    expect((await new NoteStore(cwd).read("1")).body).toBe("b\n");
  });
});

describe("note tool errors (read by the model: pinned)", () => {
  it("lists the existing ids for an unknown id", async () => {
    await ok({ action: "create", title: "A", body: "" });
    expect(await call({ action: "read", id: "0042-missing" })).toEqual({
      tool_call_id: "call_1",
      ok: false,
      content:
        'Error [note_not_found]: Note "0042-missing" not found. Existing note ids: 0001-a.\n' +
        'Hint: Call note again with one of those ids, or with action "list".',
      code: "note_not_found",
    });
  });

  it("refuses an id that is not a note id, before it becomes a path", async () => {
    await ok({ action: "create", title: "A", body: "" });
    for (const action of ["read", "update", "delete"]) {
      expect(await call({ action, id: "../../../NOTEDEL", append: "x" })).toMatchObject({
        ok: false,
        content:
          'Error [note_not_found]: "../../../NOTEDEL" is not a note id (digits, a dash and a slug, such as 0003-patch-failed). Existing note ids: 0001-a.\n' +
          'Hint: Call note again with one of those ids, or with action "list".',
      });
    }
  });

  it("does not follow ids a shipped index.json or front matter names outside the notes", async () => {
    const outside = await mkdtemp(join(tmpdir(), "note-outside-"));
    const victim = join(outside, "NOTEDEL.md");
    await writeFile(victim, "keep\n");
    const dir = join(cwd, ".agent", "notes");
    await mkdir(dir, { recursive: true });
    const meta = { title: "t", type: "general", tags: [], created_at: "c", updated_at: "u" };
    const escape = relative(dir, join(outside, "NOTEDEL"));
    await writeFile(
      join(dir, "index.json"),
      JSON.stringify({
        next_number: 2,
        notes: [
          { id: escape, ...meta },
          { id: "x", ...meta },
        ],
      }),
    );
    await writeFile(join(dir, "x.md"), `---\nid: ${relative(dir, join(outside, "PWN"))}\n---\nb\n`);
    expect((await call({ action: "delete", id: escape })).ok).toBe(false);
    expect((await call({ action: "read", id: escape })).ok).toBe(false);
    expect((await call({ action: "update", id: "x", append: "y" })).ok).toBe(false);
    expect(await ok({ action: "list" })).toBe("No notes.");
    expect(await readFile(victim, "utf8")).toBe("keep\n");
    expect(await readdir(outside)).toEqual(["NOTEDEL.md"]);
    await rm(outside, { recursive: true, force: true });
  });

  it("refuses an update that changes nothing", async () => {
    await ok({ action: "create", title: "A", body: "" });
    expect((await call({ action: "update", id: "1" })).content).toBe(
      "Error [nothing_to_update]: update of note 1 names nothing to change.\n" +
        "Hint: Call note again with at least one of title, type, tags, body, append.",
    );
  });

  it("names the unknown action and the valid ones", async () => {
    expect((await call({ action: "remove", id: "1" })).content).toBe(
      "Error: invalid arguments for note:\n" +
        '- action: Invalid option: expected one of "create"|"read"|"update"|"delete"|"list"|"search"|"summary"\n' +
        "Call note again with corrected arguments.",
    );
  });

  it("says which field is wrong", async () => {
    expect((await call({ action: "create", title: "T", body: "x", type: "idea" })).content).toBe(
      "Error: invalid arguments for note:\n" +
        '- type: Invalid option: expected one of "task_state"|"conclusion"|"blocker"|"action"|"reference"|"general"\n' +
        "Call note again with corrected arguments.",
    );
  });

  it("names every field the action needs and did not get", async () => {
    expect((await call({ action: "create" })).content).toBe(
      "Error: invalid arguments for note:\n" +
        "- title: create needs title\n" +
        "- body: create needs body\n" +
        "Call note again with corrected arguments.",
    );
    expect((await call({ action: "search", tag: "parser" })).content).toBe(
      "Error: invalid arguments for note:\n" +
        "- query: search needs query\n" +
        "Call note again with corrected arguments.",
    );
  });
});
