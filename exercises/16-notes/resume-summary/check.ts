// Exercise "Pick up where the last run stopped": main.ts exports startMessages(task, notes), the
// messages a run begins with: the notebook's summary in a message before the task when there are
// notes, the task alone in a fresh workspace; and main builds its conversation with it.
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

interface Message {
  role: string;
  content?: unknown;
}

interface NoteStore {
  create(input: { title: string; type?: string; tags?: string[]; body: string }): Promise<{
    id: string;
  }>;
}

interface StoreModule {
  NoteStore: new (cwd: string) => NoteStore;
}

interface Main {
  startMessages?: (task: string, notes: NoteStore) => Promise<Message[]>;
}

const TASK = "Finish the receipt layout.";

export default async function check(chapterDir: string): Promise<void> {
  const { NoteStore } = (await import(
    pathToFileURL(join(chapterDir, "src/notes/note-store.ts")).href
  )) as StoreModule;
  const main = (await import(pathToFileURL(join(chapterDir, "src/main.ts")).href)) as Main;
  assert.equal(
    typeof main.startMessages,
    "function",
    "src/main.ts should export startMessages(task, notes): the messages a run begins with",
  );
  const startMessages = main.startMessages!;
  const cwd = await mkdtemp(join(tmpdir(), "resume-summary-"));
  try {
    const notes = new NoteStore(cwd);
    assert.deepEqual(
      await startMessages(TASK, notes),
      [{ role: "user", content: TASK }],
      "in a fresh workspace there is nothing to pick up: the task alone",
    );

    const state = await notes.create({
      title: "Receipt layout",
      type: "task_state",
      body: "Done: item lines. Next: the coupon line.",
    });
    await notes.create({ title: "Tax rounding unclear", type: "blocker", body: "Ask first." });
    const messages = await startMessages(TASK, notes);
    assert.deepEqual(
      messages.at(-1),
      { role: "user", content: TASK },
      "the task should stay the last message, so the model answers it",
    );
    const before = messages
      .slice(0, -1)
      .map((message) => (typeof message.content === "string" ? message.content : ""))
      .join("\n");
    assert.ok(
      before.includes("Next: the coupon line."),
      `a message before the task should hold the summary, with the latest task state in full; got:\n${before}`,
    );
    assert.ok(before.includes(state.id), "the summary names the task state's note id");
    assert.ok(before.includes("Tax rounding unclear"), "the summary lists the open blockers");
    assert.ok(
      messages.slice(0, -1).every((message) => message.role !== "system"),
      "keep the summary out of the system prompt: add it as a message of its own",
    );

    const source = await readFile(join(chapterDir, "src/main.ts"), "utf8");
    assert.match(
      source,
      /await startMessages\(/,
      "main should build its conversation with startMessages(args.task, …)",
    );
  } finally {
    await rm(cwd, { recursive: true, force: true });
  }
}
