import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { z } from "zod";
import { agentFolder } from "../fs/agent-folder.ts";
import { sweepStaleTemps, tempName } from "../fs/temp-files.ts";
import { NOTE_ID, NoteMeta, parseNote, serializeNote } from "./note.ts";
import type { Note, NoteType } from "./note.ts";

// Notes live in `<workspace>/.agent/notes/<id>.md`. The Markdown files are
// the truth; `index.json` is a cache of their front matter so listing does not
// read every note, and it is rebuilt from the files when missing or broken.

export const NOTES_DIR = join(".agent", "notes");

const NoteIndex = z.object({
  // Never reused, so a deleted note's id cannot come back meaning something else.
  next_number: z.number().int().positive(),
  notes: z.array(NoteMeta),
});
type NoteIndex = z.infer<typeof NoteIndex>;

export interface NewNote {
  title: string;
  type?: NoteType;
  tags?: string[];
  body: string;
}

export interface NoteChanges {
  title?: string;
  type?: NoteType;
  tags?: string[];
  // Replaces the body.
  body?: string;
  // Added to the end of the body, for running logs.
  append?: string;
}

export interface NoteFilter {
  type?: NoteType;
  tag?: string;
}

export interface SearchHit {
  note: NoteMeta;
  // The first body line (or the title) where the query matched.
  excerpt: string;
}

export class NoteNotFoundError extends Error {
  constructor(id: string, existing: string[]) {
    super(
      existing.length === 0
        ? `Note "${id}" not found: there are no notes yet. Create one with action "create".`
        : `Note "${id}" not found. Existing note ids: ${existing.join(", ")}.`,
    );
    this.name = "NoteNotFoundError";
  }
}

// An id is a file name: one that is not shaped as `create` makes them never reaches a path.
export class BadNoteIdError extends NoteNotFoundError {
  constructor(id: string, existing: string[]) {
    super(id, existing);
    this.message = `"${id}" is not a note id (digits, a dash and a slug, such as 0003-patch-failed). ${
      existing.length === 0
        ? "There are no notes yet."
        : `Existing note ids: ${existing.join(", ")}.`
    }`;
  }
}

export class NoteStore {
  readonly dir: string;
  // Mutations run one at a time: each rewrites the index.
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly cwd: string,
    private readonly clock: () => Date = () => new Date(),
  ) {
    this.dir = join(cwd, NOTES_DIR);
  }

  create(input: NewNote): Promise<Note> {
    return this.exclusive(async () => {
      const index = await this.loadIndex();
      const time = this.clock().toISOString();
      const note: Note = {
        id: `${String(index.next_number).padStart(4, "0")}-${slugify(input.title)}`,
        title: input.title.trim(),
        type: input.type ?? "general",
        tags: cleanTags(input.tags ?? []),
        created_at: time,
        updated_at: time,
        body: tidyBody(input.body),
      };
      // The number is saved as taken before the note is written: a crash in between then skips a
      // number, where saving it after could hand the number out again and overwrite the note.
      index.next_number += 1;
      await this.saveIndex(index);
      await this.writeNote(note);
      index.notes.push(metaOf(note));
      await this.saveIndex(index);
      return note;
    });
  }

  async read(id: string): Promise<Note> {
    const index = await this.loadIndex();
    return this.readFile(resolveId(id, index));
  }

  update(id: string, changes: NoteChanges): Promise<Note> {
    return this.exclusive(async () => {
      const index = await this.loadIndex();
      const current = await this.readFile(resolveId(id, index));
      let body = changes.body ?? current.body;
      if (changes.append !== undefined) body = joinParagraphs(body, changes.append);
      const note: Note = {
        ...current,
        title: changes.title?.trim() ?? current.title,
        type: changes.type ?? current.type,
        tags: changes.tags ? cleanTags(changes.tags) : current.tags,
        updated_at: this.clock().toISOString(),
        body: tidyBody(body),
      };
      await this.writeNote(note);
      index.notes = index.notes.map((meta) => (meta.id === note.id ? metaOf(note) : meta));
      await this.saveIndex(index);
      return note;
    });
  }

  delete(id: string): Promise<NoteMeta> {
    return this.exclusive(async () => {
      const index = await this.loadIndex();
      const meta = resolveId(id, index);
      await rm(this.fileOf(meta.id), { force: true });
      index.notes = index.notes.filter((other) => other.id !== meta.id);
      await this.saveIndex(index);
      return meta;
    });
  }

  // Oldest first.
  async list(filter: NoteFilter = {}): Promise<NoteMeta[]> {
    const index = await this.loadIndex();
    return index.notes.filter((meta) => matchesFilter(meta, filter));
  }

  // Case-insensitive; every word of the query must appear in the title, the
  // tags or the body.
  async search(query: string, filter: NoteFilter = {}): Promise<SearchHit[]> {
    const words = query.toLowerCase().split(/\s+/).filter(Boolean);
    const hits: SearchHit[] = [];
    for (const meta of await this.list(filter)) {
      const note = await this.readFile(meta);
      const haystack = [note.title, ...note.tags, note.body].join("\n").toLowerCase();
      if (!words.every((word) => haystack.includes(word))) continue;
      hits.push({ note: metaOf(note), excerpt: excerptFor(note, words) });
    }
    return hits;
  }

  // What a model needs to pick up the work again: counts, the latest task
  // state in full, open blockers, and the most recent notes.
  async summary(): Promise<string> {
    const notes = await this.list();
    if (notes.length === 0) return "No notes yet.";
    const counts = new Map<string, number>();
    for (const meta of notes) counts.set(meta.type, (counts.get(meta.type) ?? 0) + 1);
    const countText = [...counts].map(([type, count]) => `${count} ${type}`).join(", ");
    const lines = [`${notes.length} notes: ${countText}.`];

    const byRecency = [...notes].sort((a, b) => b.updated_at.localeCompare(a.updated_at));
    const taskState = byRecency.find((meta) => meta.type === "task_state");
    if (taskState) {
      const note = await this.readFile(taskState);
      lines.push(
        "",
        `Latest task state (${note.id}, updated ${note.updated_at}):`,
        note.body.trimEnd(),
      );
    }
    const blockers = byRecency.filter((meta) => meta.type === "blocker");
    if (blockers.length > 0) {
      lines.push("", "Blockers:", ...blockers.map(listLine));
    }
    lines.push("", "Most recent:", ...byRecency.slice(0, 5).map(listLine));
    return lines.join("\n");
  }

  private async readFile(meta: NoteMeta): Promise<Note> {
    const path = this.fileOf(meta.id);
    // The file name is the id: a front matter naming another file cannot redirect an update.
    return { ...parseNote(await readFile(path, "utf8"), path), id: meta.id };
  }

  private fileOf(id: string): string {
    return join(this.dir, `${id}.md`);
  }

  private async writeNote(note: Note): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    await writeAtomically(this.fileOf(note.id), serializeNote(note));
  }

  private async loadIndex(): Promise<NoteIndex> {
    // A symlinked .agent/ or .agent/notes would put the notes outside the workspace.
    await agentFolder(this.cwd);
    try {
      const parsed = NoteIndex.safeParse(
        JSON.parse(await readFile(join(this.dir, "index.json"), "utf8")),
      );
      if (parsed.success) return parsed.data;
    } catch {
      // Missing or unreadable: rebuild below.
    }
    return this.rebuildIndex();
  }

  private async rebuildIndex(): Promise<NoteIndex> {
    let names: string[] = [];
    try {
      // An index.json holding an id that is not a note id failed NoteIndex: only files named as
      // notes are read back, so a shipped `../x.md` entry or file never becomes a note.
      const isNote = (name: string) => name.endsWith(".md") && NOTE_ID.test(name.slice(0, -3));
      names = (await readdir(this.dir)).filter(isNote).sort();
    } catch {
      return { next_number: 1, notes: [] };
    }
    const notes: NoteMeta[] = [];
    for (const name of names) {
      const path = join(this.dir, name);
      notes.push(metaOf(parseNote(await readFile(path, "utf8"), path)));
    }
    const numbers = notes.map((meta) => Number.parseInt(meta.id, 10)).filter(Number.isFinite);
    return { next_number: Math.max(0, ...numbers) + 1, notes };
  }

  private async saveIndex(index: NoteIndex): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    await writeAtomically(join(this.dir, "index.json"), JSON.stringify(index, null, 2) + "\n");
  }

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const result = this.queue.then(work);
    this.queue = result.catch(() => undefined);
    return result;
  }
}

// Accepts the full id, or just its number ("3" or "0003"): models shorten ids.
function resolveId(id: string, index: NoteIndex): NoteMeta {
  const wanted = id.trim().replace(/\.md$/, "");
  if (!NOTE_ID.test(wanted) && !/^\d+$/.test(wanted)) {
    throw new BadNoteIdError(
      id,
      index.notes.map((meta) => meta.id),
    );
  }
  const exact = index.notes.find((meta) => meta.id === wanted);
  if (exact) return exact;
  if (/^\d+$/.test(wanted)) {
    const byNumber = index.notes.find((meta) => Number.parseInt(meta.id, 10) === Number(wanted));
    if (byNumber) return byNumber;
  }
  throw new NoteNotFoundError(
    id,
    index.notes.map((meta) => meta.id),
  );
}

function matchesFilter(meta: NoteMeta, filter: NoteFilter): boolean {
  if (filter.type && meta.type !== filter.type) return false;
  if (filter.tag && !meta.tags.includes(filter.tag.trim().toLowerCase())) return false;
  return true;
}

function metaOf(note: Note): NoteMeta {
  const { id, title, type, tags, created_at, updated_at } = note;
  return { id, title, type, tags, created_at, updated_at };
}

function listLine(meta: NoteMeta): string {
  return `- ${meta.id} [${meta.type}] ${meta.title}`;
}

function excerptFor(note: Note, words: string[]): string {
  const line = note.body
    .split("\n")
    .find((text) => words.some((word) => text.toLowerCase().includes(word)));
  const text = (line ?? note.title).trim();
  return text.length > 160 ? text.slice(0, 157) + "..." : text;
}

function slugify(title: string): string {
  const slug = title
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40)
    .replace(/-+$/, "");
  return slug || "note";
}

// Tags are compared case-insensitively, so they are stored in lower case.
function cleanTags(tags: string[]): string[] {
  return [...new Set(tags.map((tag) => tag.trim().toLowerCase()).filter(Boolean))];
}

// One trailing newline, as in the file, so a note reads back exactly as returned.
function tidyBody(body: string): string {
  const trimmed = body.trimEnd();
  return trimmed === "" ? "" : trimmed + "\n";
}

function joinParagraphs(body: string, addition: string): string {
  if (body.trim() === "") return addition;
  return `${body.replace(/\n*$/, "")}\n\n${addition}`;
}

// A note is never left half-written: write a temp file, then rename over. Chapter 15's temp names
// carry a random part, which keeps two stores of one process off each other's temp file.
async function writeAtomically(path: string, text: string): Promise<void> {
  // A crash between write and rename leaves the temp file behind: the first note write of a process
  // removes the leftovers of dead processes, as chapter 15's patch writes do.
  await sweepStaleTemps(dirname(path));
  const temp = join(dirname(path), tempName(path));
  await writeFile(temp, text, "utf8");
  await rename(temp, path);
}
