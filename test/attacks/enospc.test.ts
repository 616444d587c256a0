// Attack: a full disk at every point of a patch. The workspace is a 64 KB tmpfs, and a filler file
// leaves less room each trial, so the temp file, the backup or the manifest runs out of space in
// turn. Whatever failed, no temp file may stay behind, the target holds its old or its new bytes,
// and once there is room again the run can still be undone to the exact original bytes.
import { execFileSync } from "node:child_process";
import { mkdirSync, rmdirSync } from "node:fs";
import { readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  importChapter,
  isTempName,
  listTree,
  patch,
  report,
  SCALE,
  timeLimit,
  type ApplyPatchModule,
  type UndoModule,
} from "./attack-kit.ts";

const DISK = path.join(tmpdir(), `attack-enospc-${process.pid}`);

/** Mounts the small tmpfs; the reason it could not, or undefined when it is mounted. */
function mountSmallDisk(): string | undefined {
  if (process.platform !== "linux") return "tmpfs is Linux only";
  if (process.getuid?.() !== 0) return "mounting a tmpfs needs root";
  mkdirSync(DISK, { recursive: true });
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", DISK], { stdio: "pipe" });
    return undefined;
  } catch (error) {
    rmdirSync(DISK);
    return `mount -t tmpfs failed: ${(error as Error).message.split("\n")[0]}`;
  }
}

const cannotMount = mountSmallDisk();
afterAll(() => {
  if (cannotMount !== undefined) return;
  execFileSync("umount", [DISK]);
  rmdirSync(DISK);
});

describe("attack: the disk fills up mid-patch", () => {
  // CI must run it: a skip there would hide a regression.
  it.runIf(process.env.CI === "true" && cannotMount !== undefined)(
    "can mount the small disk in CI",
    () => {
      expect.fail(`The ENOSPC attack must run in CI, but ${cannotMount}.`);
    },
  );

  it.skipIf(cannotMount !== undefined)(
    cannotMount === undefined
      ? "keeps the file whole, leaves no temp file, and can undo, however full the disk"
      : `ENOSPC attack skipped: ${cannotMount}`,
    async () => {
      const { applyPatch } = await importChapter<ApplyPatchModule>("src/patch/apply-patch.ts");
      const { undoRun } = await importChapter<UndoModule>("src/ledger/undo.ts");
      const lines = Array.from({ length: 400 }, (_, i) => `line ${i} ${"z".repeat(20)}`);
      const original = [...lines, ""].join("\n"); // about 12 KB
      const problems: string[] = [];
      const steps = Math.min(60, 28 * SCALE);
      for (let trial = 0; trial < steps; trial += 1) {
        for (const name of await readdir(DISK))
          await rm(path.join(DISK, name), { recursive: true });
        await writeFile(path.join(DISK, "a.txt"), original);
        // Fill all but `room` bytes; a filler that does not fit is cut short by the disk itself.
        const room = Math.round((trial / steps) * 48 * 1024);
        await writeFile(
          path.join(DISK, "filler"),
          Buffer.alloc(64 * 1024 - room - 12 * 1024),
        ).catch(() => undefined);
        const runId = `enospc-${trial}`;
        const first = patch("*** Update File: a.txt", "@@", "-line 0 " + "z".repeat(20), "+first");
        const result = await applyPatch(first, { cwd: DISK, runId }).catch((error: Error) => ({
          success: false,
          failures: [{ path: "", code: "thrown", message: error.message }],
        }));
        const temps = (await listTree(DISK)).filter((name) => isTempName(path.basename(name)));
        if (temps.length > 0) problems.push(`room ${room}: temp files left: ${temps.join(", ")}`);
        const now = await readFile(path.join(DISK, "a.txt"), "utf8");
        if (now !== original && now !== original.replace(/^line 0 z+/, "first")) {
          problems.push(`room ${room}: a.txt is torn (${now.length} bytes)`);
          continue;
        }

        // Room again: the run goes on, then is undone.
        await rm(path.join(DISK, "filler"), { force: true });
        for (const name of temps) await rm(path.join(DISK, name), { force: true });
        const second = patch(
          "*** Update File: a.txt",
          "@@",
          "-line 1 " + "z".repeat(20),
          "+second",
        );
        const later = await applyPatch(second, { cwd: DISK, runId });
        if (!later.success) {
          problems.push(`room ${room}: with room again, ${later.failures[0]?.message}`);
          continue;
        }
        try {
          await undoRun(DISK, runId);
        } catch (error) {
          problems.push(
            `room ${room} (first patch ${result.success ? "applied" : "failed"}): undo: ${(error as Error).message.split("\n")[1] ?? (error as Error).message}`,
          );
          continue;
        }
        if ((await readFile(path.join(DISK, "a.txt"), "utf8")) !== original) {
          problems.push(`room ${room}: undo did not bring back the original bytes`);
        }
      }
      report("enospc", `${steps} trials: ${problems.length} with a problem`);
      expect(problems, `${problems.length} of ${steps} trials`).toEqual([]);
    },
    timeLimit(60),
  );
});
