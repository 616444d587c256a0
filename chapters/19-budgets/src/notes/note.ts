import { parse, stringify } from "yaml";
import { z } from "zod";

// A note is a Markdown file with YAML front matter, so a person can read and
// edit it as easily as the agent can:
//
//   ---
//   id: 0003-patch-failed
//   title: Patch failed
//   type: blocker
//   tags: [patch]
//   created_at: 2025-01-31T14:25:01.000Z
//   updated_at: 2025-01-31T14:25:01.000Z
//   ---
//   ## Error
//   ...

export const NOTE_TYPES = [
  "task_state",
  "conclusion",
  "blocker",
  "action",
  "reference",
  "general",
] as const;
export const NoteType = z.enum(NOTE_TYPES);
export type NoteType = z.infer<typeof NoteType>;

// The shape `NoteStore.create` gives ids. An id becomes a file name, so one from index.json, front
// matter or the model that is anything else (`../../x`) is refused before it reaches a path.
export const NOTE_ID = /^\d{4,}-[a-z0-9-]+$/;

export const NoteMeta = z.object({
  id: z.string().regex(NOTE_ID, "not a note id (digits, a dash and a slug: 0003-patch-failed)"),
  title: z.string(),
  type: NoteType,
  tags: z.array(z.string()),
  created_at: z.string(),
  updated_at: z.string(),
});
export type NoteMeta = z.infer<typeof NoteMeta>;

export interface Note extends NoteMeta {
  body: string;
}

const FRONT_MATTER = /^---\r?\n([\s\S]*?)\r?\n---(?:\r?\n|$)/;

export function serializeNote(note: Note): string {
  const meta: NoteMeta = {
    id: note.id,
    title: note.title,
    type: note.type,
    tags: note.tags,
    created_at: note.created_at,
    updated_at: note.updated_at,
  };
  const body = note.body.endsWith("\n") || note.body === "" ? note.body : note.body + "\n";
  return `---\n${stringify(meta)}---\n${body}`;
}

// `source` names the file in errors, so a hand-edited note that broke is easy to find.
export function parseNote(text: string, source: string): Note {
  const match = FRONT_MATTER.exec(text);
  if (!match) {
    throw new Error(
      `${source} has no YAML front matter. A note starts with a "---" line, the fields, and another "---" line.`,
    );
  }
  const meta = NoteMeta.safeParse(parse(match[1] ?? ""));
  if (!meta.success) {
    const issue = meta.error.issues[0];
    throw new Error(
      `${source} has invalid front matter: ${issue?.path.join(".") || "(root)"}: ${issue?.message}.`,
    );
  }
  return { ...meta.data, body: text.slice(match[0].length) };
}
