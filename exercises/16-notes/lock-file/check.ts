// Exercise "Two stores, one notebook": NoteStore mutations take chapter 15's file lock
// (lockFiles, in .agent/locks/) on `.agent/notes/index.json`, so two stores on one workspace never
// hand out one number twice or lose an index entry; a live holder's lock is waited for, and the
// lock of a process that is gone is taken over.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtemp, readdir, realpath, rm, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
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

interface LocksModule {
  lockFiles(folder: string, realPaths: string[]): Promise<() => Promise<void>>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The lock files in a folder (none when the folder does not exist). */
async function locksIn(folder: string): Promise<string[]> {
  const names = await readdir(folder).catch(() => []);
  return names.filter((name) => name.endsWith(".lock"));
}

/** The pid of a process that has exited. */
function deadPid(): number {
  const pid = spawnSync(process.execPath, ["-e", ""]).pid;
  if (pid === undefined) throw new Error("could not start a process to get a dead pid");
  return pid;
}

export default async function check(chapterDir: string): Promise<void> {
  const { NoteStore } = (await import(
    pathToFileURL(join(chapterDir, "src/notes/note-store.ts")).href
  )) as StoreModule;
  const { lockFiles } = (await import(
    pathToFileURL(join(chapterDir, "src/patch/file-locks.ts")).href
  )) as LocksModule;
  const cwd = await mkdtemp(join(tmpdir(), "lock-file-"));
  // Locks are taken on real paths (the temp folder may be behind a symlink, as on macOS).
  const agent = join(await realpath(cwd), ".agent");
  const locks = join(agent, "locks");
  const index = join(agent, "notes", "index.json");
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
    assert.deepEqual(await locksIn(locks), [], "every lock should be let go after each mutation");

    // Another process holding the lock on index.json (live: this one) is waited for.
    const unlock = await lockFiles(locks, [index]);
    let settled = false;
    const waiting = first.create({ title: "Waits", body: "" }).then(() => (settled = true));
    await sleep(150);
    assert.equal(
      settled,
      false,
      `create should wait while another process holds the lock on ${index} (lockFiles in ${locks})`,
    );
    await unlock();
    await waiting;

    // The lock of a process that crashed holding it is taken over, not waited for.
    await lockFiles(locks, [index]); // held by a "process" that is about to crash
    const [name] = await locksIn(locks);
    assert.ok(name !== undefined, `lockFiles should have made a lock in ${locks}`);
    await writeFile(join(locks, name), `${deadPid()} ${hostname()} ${new Date().toISOString()}`);
    const done = await Promise.race([
      second.create({ title: "After a crash", body: "" }).then(
        () => true,
        () => false,
      ),
      sleep(1500).then(() => false),
    ]);
    assert.equal(done, true, "a lock whose process is gone is a crashed process's: take it over");
  } finally {
    await rm(cwd, { recursive: true, force: true, maxRetries: 3 });
  }
}
