// Exercise "Two stores, one notebook": NoteStore mutations take `.agent/notes/.lock` (created with
// open(…, "wx")), so two stores on one workspace never hand out one number twice or lose an
// index entry; a fresh lock is waited for, and a stale one (a crashed process's) is removed.
import assert from "node:assert/strict";
import { access, mkdir, mkdtemp, readdir, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

interface NoteMeta {
  id: string;
}

interface NoteStore {
  readonly dir: string;
  create(input: { title: string; body: string }): Promise<NoteMeta>;
  list(): Promise<NoteMeta[]>;
}

interface StoreModule {
  NoteStore: new (cwd: string) => NoteStore;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

export default async function check(chapterDir: string): Promise<void> {
  const { NoteStore } = (await import(
    pathToFileURL(join(chapterDir, "src/notes/note-store.ts")).href
  )) as StoreModule;
  const cwd = await mkdtemp(join(tmpdir(), "lock-file-"));
  try {
    // Two stores on one workspace, as two agents (or two processes) would have.
    const first = new NoteStore(cwd);
    const second = new NoteStore(cwd);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 16 }, (_, i) =>
        (i % 2 === 0 ? first : second).create({ title: `Note ${i}`, body: `body ${i}` }),
      ),
    );
    const failed = outcomes.flatMap((outcome) =>
      outcome.status === "rejected" ? [String(outcome.reason)] : [],
    );
    assert.deepEqual(
      failed,
      [],
      "16 creates at once through two stores should all succeed; without a lock their writes collide",
    );
    const created = outcomes.flatMap((outcome) =>
      outcome.status === "fulfilled" ? [outcome.value] : [],
    );
    const numbers = created.map((note) => Number.parseInt(note.id, 10)).sort((a, b) => a - b);
    assert.deepEqual(
      numbers,
      Array.from({ length: 16 }, (_, i) => i + 1),
      `16 notes created at once through two stores should get the numbers 1 to 16, each once; got ${numbers.join(", ")}`,
    );
    const files = (await readdir(first.dir)).filter((name) => name.endsWith(".md"));
    assert.equal(files.length, 16, "every note should have its own file");
    const listed = await new NoteStore(cwd).list();
    assert.equal(
      listed.length,
      16,
      `index.json should list all 16 notes; it lists ${listed.length}: one store's index write lost the other's entries`,
    );
    const lock = join(first.dir, ".lock");
    assert.equal(await exists(lock), false, "the lock file should be removed after each mutation");

    // A lock held by someone else (fresh) is waited for.
    await writeFile(lock, "");
    let settled = false;
    const waiting = first.create({ title: "Waits", body: "" }).then(() => (settled = true));
    await sleep(150);
    assert.equal(settled, false, `create should wait while ${lock} exists and is fresh`);
    await rm(lock);
    await waiting;

    // A lock left by a crashed process (a minute old) is removed, not waited for forever.
    await mkdir(first.dir, { recursive: true });
    await writeFile(lock, "");
    const aMinuteAgo = new Date(Date.now() - 60_000);
    await utimes(lock, aMinuteAgo, aMinuteAgo);
    const done = await Promise.race([
      second.create({ title: "After a crash", body: "" }).then(() => true),
      sleep(1500).then(() => false),
    ]);
    assert.equal(done, true, "a lock a minute old is a crashed process's: remove it and go on");
  } finally {
    await rm(cwd, { recursive: true, force: true, maxRetries: 3 });
  }
}
