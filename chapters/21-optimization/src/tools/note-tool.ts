import { z } from "zod";
import type { NoteMeta } from "../notes/note.ts";
import { NOTE_TYPES, serializeNote } from "../notes/note.ts";
import { NoteNotFoundError, NoteStore } from "../notes/note-store.ts";
import { defineTool } from "./define-tool.ts";
import { ToolError } from "./tool-error.ts";

// The `note` tool: the agent's own notebook in `.agent/notes/`. One tool with
// an `action` rather than seven tools keeps the tool list short.
//
// The arguments are one flat object: the action, and every field an action
// uses. A union of one object per action would show exactly which fields each
// action takes, but its JSON schema repeats the shared fields for every action
// and cost three times the tokens, on every request of a run. So the schema
// stays flat, and a check names the fields an action cannot do without.

const ACTIONS = ["create", "read", "update", "delete", "list", "search", "summary"] as const;
type Action = (typeof ACTIONS)[number];

/** What each action cannot do without. */
const NEEDS: Record<Action, ReadonlyArray<"id" | "title" | "body" | "query">> = {
  create: ["title", "body"],
  read: ["id"],
  update: ["id"],
  delete: ["id"],
  list: [],
  search: ["query"],
  summary: [],
};

const NoteArgs = z
  .object({
    action: z.enum(ACTIONS),
    id: z.string().min(1).optional().describe('e.g. "0003-parser-bug", or just "3"'),
    title: z.string().min(1).optional(),
    type: z.enum(NOTE_TYPES).optional(),
    tags: z.array(z.string()).optional(),
    body: z.string().optional().describe("Markdown; update replaces it"),
    append: z.string().optional().describe("update: adds a paragraph to the body"),
    query: z.string().min(1).optional().describe("Words that must all appear"),
    tag: z.string().optional().describe("list, search: only notes with this tag"),
  })
  .superRefine((args, context) => {
    for (const field of NEEDS[args.action]) {
      if (args[field] === undefined) {
        context.addIssue({
          code: "custom",
          path: [field],
          message: `${args.action} needs ${field}`,
        });
      }
    }
  });
type NoteArgs = z.infer<typeof NoteArgs>;

export const noteTool = defineTool({
  name: "note",
  // What notes are for is in the type enum (task_state, conclusion, blocker, ...): not said twice.
  description:
    "Notes kept across runs. " +
    "create needs title and body; read, update, delete need id; search needs query.",
  effect: "write",
  schema: NoteArgs,
  async execute(args, context) {
    // The harness hands over the run's notebook; without one, the workspace's.
    const store = context.notes ?? new NoteStore(context.cwd);
    try {
      return { ok: true, content: await runRequest(store, args) };
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

async function runRequest(store: NoteStore, args: NoteArgs): Promise<string> {
  // NoteArgs' check makes sure an action has the fields it needs: these defaults are never used.
  const { id = "", title = "", body = "", query = "" } = args;
  const { type, tags, tag } = args;
  switch (args.action) {
    case "create": {
      const note = await store.create({ title, type, tags, body });
      return `Created note ${note.id} (${note.type}): ${note.title}`;
    }
    case "read":
      return serializeNote(await store.read(id));
    case "update": {
      const changes = { title: args.title, type, tags, body: args.body, append: args.append };
      if (Object.values(changes).every((value) => value === undefined)) {
        throw new ToolError(
          "nothing_to_update",
          `update of note ${id} names nothing to change.`,
          "Call note again with at least one of title, type, tags, body, append.",
        );
      }
      const note = await store.update(id, changes);
      return `Updated note ${note.id} (${note.type}): ${note.title}`;
    }
    case "delete": {
      const meta = await store.delete(id);
      return `Deleted note ${meta.id}: ${meta.title}`;
    }
    case "list": {
      const notes = await store.list({ type, tag });
      if (notes.length === 0) return `No notes${describeFilter(args)}.`;
      return [`${notes.length} note(s)${describeFilter(args)}:`, ...notes.map(listLine)].join("\n");
    }
    case "search": {
      const hits = await store.search(query, { type, tag });
      const what = `"${query}"${describeFilter(args)}`;
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
