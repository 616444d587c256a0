import { open } from "node:fs/promises";
import type { FileHandle } from "node:fs/promises";
import { dirname } from "node:path";
import { syncFolder } from "../fs/atomic-write.ts";

// An append-only JSON Lines file. Every value is written as one line and
// flushed to disk (fdatasync) before the append resolves, so a crash loses
// at most the line being written. Appends are queued, so they land in the
// order they were requested even when callers do not await each one.
export class JsonlAppender {
  private queue: Promise<void> = Promise.resolve();
  private closed = false;

  private constructor(private readonly handle: FileHandle) {}

  // Creates the file; refuses to append to an existing one, because two
  // writers on one ledger would interleave their histories.
  static async create(path: string): Promise<JsonlAppender> {
    const handle = await open(path, "wx");
    // Makes the new directory entry itself durable, not only the file's bytes.
    await syncFolder(dirname(path));
    return new JsonlAppender(handle);
  }

  append(value: unknown): Promise<void> {
    if (this.closed)
      return Promise.reject(new Error("JSONL file is closed; no more events can be appended."));
    const line = JSON.stringify(value) + "\n";
    const write = this.queue.then(async () => {
      await this.handle.appendFile(line, "utf8");
      await this.handle.datasync();
    });
    // A failed write must not block later ones forever; the caller of the
    // failed append still sees its rejection.
    this.queue = write.catch(() => undefined);
    return write;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.queue;
    await this.handle.close();
  }
}
