import { execFileSync } from "node:child_process";
import { lstat, symlink } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../src/apply-patch-cli.ts";
import { applyPatch } from "../src/patch/apply-patch.ts";
import { patch, sha256, workspace } from "./apply-patch-fixtures.ts";

// A named pipe blocks whoever reads it until something writes, and a device such as /dev/zero
// never ends: apply_patch must refuse both before reading a byte, or it hangs (or fills memory).
describe.runIf(process.platform !== "win32")("files that are not regular files", () => {
  const refusal = (file: string, kind: string) => ({
    path: file,
    code: "disallowed_path",
    message: `Cannot patch ${file}: it is ${kind}, not a regular file.`,
    hint: "apply_patch edits regular files only; leave this one alone.",
  });

  it.each([
    ["update", patch("*** Update File: events.txt", "@@", "-a", "+b")],
    ["delete", patch("*** Delete File: events.txt")],
    ["add onto", patch("*** Add File: events.txt", "+b")],
  ])("refuses to %s a named pipe (FIFO), at once, and leaves it as it is", async (_, text) => {
    const root = await workspace();
    execFileSync("mkfifo", [path.join(root, "events.txt")]);
    const result = await applyPatch(text, {
      cwd: root,
      expect: () => sha256(""),
    });
    expect(result.failures).toEqual([refusal("events.txt", "a named pipe (FIFO)")]);
    expect(result.changed).toEqual([]);
    expect((await lstat(path.join(root, "events.txt"))).isFIFO()).toBe(true);
  });

  // Making a device node takes root (or CAP_MKNOD); elsewhere this test is skipped.
  it.runIf(process.getuid?.() === 0)("refuses a device such as /dev/zero", async () => {
    const root = await workspace();
    execFileSync("mknod", [path.join(root, "zero.txt"), "c", "1", "5"]);
    const result = await applyPatch(patch("*** Update File: zero.txt", "@@", "-a", "+b"), {
      cwd: root,
    });
    expect(result.failures).toEqual([refusal("zero.txt", "a device")]);
  });

  it("the command line reports it and exits 1, instead of hanging", async () => {
    const root = await workspace();
    execFileSync("mkfifo", [path.join(root, "events.txt")]);
    let stderr = "";
    const status = await main(["--cwd", root, patch("*** Delete File: events.txt")], {
      stdout: () => {},
      stderr: (text) => (stderr += text),
      readStdin: async () => undefined,
    });
    expect(status).toBe(1);
    expect(stderr.split("\n")[0]).toBe(
      "error [disallowed_path] events.txt: Cannot patch events.txt: it is a named pipe (FIFO), not a regular file.",
    );
  });

  it("refuses a path through a symlink loop as a symlink, not as a disk error", async () => {
    const root = await workspace();
    await symlink("loop", path.join(root, "loop"));
    const result = await applyPatch(patch("*** Add File: loop/x.ts", "+x"), { cwd: root });
    expect(result.failures).toEqual([
      {
        path: "loop/x.ts",
        code: "symlink",
        message:
          'Path "loop/x.ts" goes through the symlink "loop" whose target "loop" cannot be resolved.',
        hint: "Broken or looping symlinks cannot be followed. Use the real path of the file instead.",
      },
    ]);
  });
});
