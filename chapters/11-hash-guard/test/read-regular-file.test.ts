import { execFileSync } from "node:child_process";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { describeFileType, readRegularFile } from "../src/fs/read-regular-file.ts";
import { useTempWorkspace } from "./tool-test-workspace.ts";

const workspace = useTempWorkspace();
const at = (name: string) => join(workspace.root(), name);

describe("readRegularFile", () => {
  it("reads a regular file, and follows a link to one", async () => {
    await writeFile(at("a.txt"), "hello\n");
    await symlink("a.txt", at("link.txt"));
    for (const name of ["a.txt", "link.txt"]) {
      const file = await readRegularFile(at(name));
      expect({ type: describeFileType(file.stats), text: file.bytes?.toString() }).toEqual({
        type: "a regular file",
        text: "hello\n",
      });
    }
  });

  it("gives no bytes for a file over maxBytes, and its size from the opened file", async () => {
    await writeFile(at("big.txt"), "x".repeat(11));
    const file = await readRegularFile(at("big.txt"), 10);
    expect({ size: file.stats.size, bytes: file.bytes }).toEqual({ size: 11, bytes: null });
  });

  it("gives no bytes for a folder, and says what it is", async () => {
    await mkdir(at("src"));
    const file = await readRegularFile(at("src"));
    expect({ type: describeFileType(file.stats), bytes: file.bytes }).toEqual({
      type: "a directory",
      bytes: null,
    });
  });

  it.runIf(process.platform !== "win32")(
    "returns at once for a named pipe no one writes to, instead of waiting",
    async () => {
      execFileSync("mkfifo", [at("events.log")]);
      const file = await readRegularFile(at("events.log"));
      expect({ type: describeFileType(file.stats), bytes: file.bytes }).toEqual({
        type: "a named pipe (FIFO)",
        bytes: null,
      });
    },
  );

  it.runIf(process.platform === "linux")(
    "gives no bytes for a device such as /dev/zero",
    async () => {
      const file = await readRegularFile("/dev/zero");
      expect({ type: describeFileType(file.stats), bytes: file.bytes }).toEqual({
        type: "a device",
        bytes: null,
      });
    },
  );
});
