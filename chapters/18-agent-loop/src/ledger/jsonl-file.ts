import { open } from "node:fs/promises";
import type { FileHandle } from "node:fs/promises";
import { dirname } from "node:path";
import { syncFolder } from "../fs/atomic-write.ts";
import { describeFileType, readRegularFile } from "../fs/read-regular-file.ts";

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

  // Reopens a file written earlier, cut at readJsonl's `validLength`: a torn line is dropped.
  static async reopen(path: string, validLength: number): Promise<JsonlAppender> {
    const handle = await open(path, "r+");
    try {
      await handle.truncate(validLength);
      // A complete last line may still lack its newline; give it one.
      const lastByte = Buffer.alloc(1);
      const { bytesRead } = await handle.read(lastByte, 0, 1, Math.max(0, validLength - 1));
      if (bytesRead === 1 && lastByte[0] !== 0x0a) await handle.write("\n", validLength);
      await handle.datasync();
    } finally {
      await handle.close();
    }
    return new JsonlAppender(await open(path, "a"));
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

export interface JsonlContents {
  values: unknown[];
  // True when the last line was cut off mid-write (a crash) and was dropped.
  tornTail: boolean;
  // Bytes of the file that hold complete lines.
  validLength: number;
}

// Reads every line. An unparsable last line without a newline is a crash mid-append: dropped and
// reported. Other bad lines are corruption, an error; so is a folder or a FIFO (readFile hangs).
export async function readJsonl(path: string): Promise<JsonlContents> {
  const { stats, bytes } = await readRegularFile(path);
  if (!bytes) throw new Error(`${path} is ${describeFileType(stats)}. Move it aside to continue.`);
  const text = bytes.toString("utf8");
  const lines = text.split("\n");
  const last = lines.pop() ?? ""; // "" when the file ends with a newline
  const values = lines.map((line, index) => parseLine(line, path, index + 1));
  const fullLength = Buffer.byteLength(text, "utf8");
  if (last === "") return { values, tornTail: false, validLength: fullLength };
  try {
    values.push(JSON.parse(last));
    // Complete but missing its newline: keep it, and let a later append add one.
    return { values, tornTail: false, validLength: fullLength };
  } catch {
    return { values, tornTail: true, validLength: fullLength - Buffer.byteLength(last, "utf8") };
  }
}

function parseLine(line: string, path: string, lineNumber: number): unknown {
  try {
    return JSON.parse(line);
  } catch {
    throw new Error(
      `${path}:${lineNumber} is not valid JSON; the file is corrupt. Move it aside to continue.`,
    );
  }
}
