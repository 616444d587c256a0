import { open } from "node:fs/promises";
import type { FileHandle } from "node:fs/promises";
import { dirname } from "node:path";
import { syncFolder } from "../fs/atomic-write.ts";

// An append-only JSON Lines file. Every value is one line, flushed to disk (fdatasync) before the
// append resolves, so a crash loses at most the line being written. Appends are queued, so they
// land in the order they were requested even when callers do not await each one.
export class JsonlAppender {
  private queue: Promise<void> = Promise.resolve();
  private closed = false;

  private constructor(private readonly handle: FileHandle) {}

  // Creates the file, never an existing one: two writers on one ledger would interleave histories.
  static async create(path: string): Promise<JsonlAppender> {
    const handle = await open(path, "ax");
    // Makes the new directory entry itself durable, not only the file's bytes.
    await syncFolder(dirname(path));
    return new JsonlAppender(handle);
  }

  append(value: unknown): Promise<void> {
    if (this.closed)
      return Promise.reject(new Error("JSONL file is closed; no more events can be appended."));
    const line = JSON.stringify(value) + "\n";
    const write = this.queue.then(async () => {
      // A full disk can take half a line: cut it off, or the next line would be glued to it.
      const { size } = await this.handle.stat();
      await this.handle.appendFile(line, "utf8").catch(async (error: unknown) => {
        await this.handle.truncate(size);
        throw error;
      });
      await this.handle.datasync();
    });
    // A failed write must not block later ones; its caller still sees the rejection.
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
