// A disk that really fills up: a 64 KB tmpfs, mounted for one test file. Mounting needs root on
// Linux; elsewhere the full-disk tests are skipped and say why. CI runs as root, and there a
// test that cannot mount fails instead, so a skip cannot hide a regression.
import { execFileSync } from "node:child_process";
import { mkdirSync, rmdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";

export function smallDisk(): { dir: string; skip: string | undefined } {
  const dir = path.join(tmpdir(), `small-disk-${process.pid}-${Date.now()}`);
  const skip = mount(dir);
  if (skip === undefined) {
    afterAll(() => {
      execFileSync("umount", [dir]);
      rmdirSync(dir);
    });
  }
  it.runIf(process.env.CI === "true" && skip !== undefined)("can mount a small disk in CI", () => {
    expect.fail(`CI must run the full-disk tests, but ${skip}.`);
  });
  return { dir, skip };
}

function mount(dir: string): string | undefined {
  if (process.platform !== "linux" || process.getuid?.() !== 0) {
    return "mounting a tmpfs needs root on Linux";
  }
  mkdirSync(dir, { recursive: true });
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", dir], { stdio: "pipe" });
    return undefined;
  } catch (error) {
    rmdirSync(dir);
    return `mount -t tmpfs failed (${(error as Error).message.split("\n")[0]})`;
  }
}
