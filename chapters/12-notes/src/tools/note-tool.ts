import { z } from "zod";
import type { NoteMeta } from "../notes/note.ts";
import { NOTE_TYPES, serializeNote } from "../notes/note.ts";
import { NoteNotFoundError, NoteStore } from "../notes/note-store.ts";
import { defineTool } from "./define-tool.ts";
import { ToolError } from "./tool-error.ts";

// The `note` tool: the agent's own notebook in `.agent/notes/`. One tool with
// an `action` rather than seven tools keeps the tool list short.
//
// The actions are a discriminated union, so each one asks for exactly its own
// fields. OpenAI function parameters must be an object at the root, and the
// JSON schema of a bare union is not, so the union sits inside `request`.

const type = z.enum(NOTE_TYPES).describe("What kind of note: " + NOTE_TYPES.join(", "));
const tags = z.array(z.string()).describe("Short keywords for finding the note again");
const id = z
  .string()
  .min(1)
  .describe('The note id, e.g. "0003-parser-bug" (or just its number, "3")');

const NoteRequest = z.discriminatedUnion("action", [
  z.object({
    action: z.literal("create"),
    title: z.string().min(1),
    type: type.optional().describe("Default: general"),
    tags: tags.optional(),
    body: z.string().describe("Markdown"),
  }),
  z.object({ action: z.literal("read"), id }),
  z.object({
    action: z.literal("update"),
    id,
    title: z.string().min(1).optional(),
    type: type.optional(),
    tags: tags.optional().describe("Replaces the tags"),
    body: z.string().optional().describe("Replaces the body"),
    append: z.string().optional().describe("Added as a new paragraph at the end of the body"),
  }),
  z.object({ action: z.literal("delete"), id }),
  z.object({ action: z.literal("list"), type: type.optional(), tag: z.string().optional() }),
  z.object({
    action: z.literal("search"),
    query: z.string().min(1).describe("Words that must all appear (case-insensitive)"),
    type: type.optional(),
    tag: z.string().optional(),
  }),
  z.object({ action: z.literal("summary") }),
]);
type NoteRequest = z.infer<typeof NoteRequest>;

export const noteTool = defineTool({
  name: "note",
  description:
    "Keep notes that outlive this conversation: task state, conclusions, blockers, references. " +
    'Arguments: {"request": {"action": ..., ...}}. Actions: create (title, body, type?, tags?), ' +
    "read (id), update (id and any of title, type, tags, body, append), delete (id), " +
    "list (type?, tag?), search (query, type?, tag?), summary. " +
    'Example: {"request": {"action": "create", "title": "Plan", "type": "task_state", "body": "1. ..."}}',
  effect: "write",
  schema: z.object({ request: NoteRequest }),
  async execute({ request }, context) {
    // The harness hands over the run's notebook; without one, the workspace's.
    const store = context.notes ?? new NoteStore(context.cwd);
    try {
      return { ok: true, content: await runRequest(store, request) };
    } catch (error) {
      if (error instanceof NoteNotFoundError) {
        throw new ToolError(
          "note_not_found",
          error.message,
          'Call note again with one of those ids, or with action "list".',
        );
      }
      throw error;
    }
  },
});

async function runRequest(store: NoteStore, request: NoteRequest): Promise<string> {
  switch (request.action) {
    case "create": {
      const note = await store.create(request);
      return `Created note ${note.id} (${note.type}): ${note.title}`;
    }
    case "read":
      return serializeNote(await store.read(request.id));
    case "update": {
      const { action: _action, id: noteId, ...changes } = request;
      if (Object.values(changes).every((value) => value === undefined)) {
        throw new ToolError(
          "nothing_to_update",
          `update of note ${noteId} names nothing to change.`,
          "Call note again with at least one of title, type, tags, body, append.",
        );
      }
      const note = await store.update(noteId, changes);
      return `Updated note ${note.id} (${note.type}): ${note.title}`;
    }
    case "delete": {
      const meta = await store.delete(request.id);
      return `Deleted note ${meta.id}: ${meta.title}`;
    }
    case "list": {
      const notes = await store.list(request);
      if (notes.length === 0) return `No notes${describeFilter(request)}.`;
      return [`${notes.length} note(s)${describeFilter(request)}:`, ...notes.map(listLine)].join(
        "\n",
      );
    }
    case "search": {
      const hits = await store.search(request.query, request);
      const what = `"${request.query}"${describeFilter(request)}`;
      if (hits.length === 0)
        return `No notes match ${what}. Try fewer or other words, or action "list".`;
      return [
        `${hits.length} note(s) match ${what}:`,
        ...hits.map((hit) => `${listLine(hit.note)}\n    ${hit.excerpt}`),
      ].join("\n");
    }
    case "summary":
      return store.summary();
  }
}

function listLine(meta: NoteMeta): string {
  const tagText = meta.tags.length > 0 ? ` #${meta.tags.join(" #")}` : "";
  return `- ${meta.id} [${meta.type}] ${meta.title}${tagText} (updated ${meta.updated_at})`;
}

function describeFilter(filter: { type?: string; tag?: string }): string {
  const parts = [
    filter.type ? `type ${filter.type}` : "",
    filter.tag ? `tag ${filter.tag}` : "",
  ].filter(Boolean);
  return parts.length > 0 ? ` with ${parts.join(" and ")}` : "";
}
