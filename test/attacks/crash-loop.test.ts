// Attack: the command line is killed with SIGKILL at random moments while it patches a 2 MB file.
// After each kill the file must hold its old bytes or its new ones, never part of either; a run
// that changed the file, or whose manifest exists, must be undoable; and once the next run has
// cleaned up, no temp file of ours may be left anywhere in the workspace.
import { existsSync } from "node:fs";
import { readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  CLI,
  importChapter,
  isTempName,
  listTree,
  patch,
  report,
  SCALE,
  scratch,
  timeLimit,
  Worker,
  type UndoModule,
} from "./attack-kit.ts";

const KILLS = 4 * SCALE;

async function backupRuns(root: string): Promise<string[]> {
  return readdir(path.join(root, ".agent", "backups")).catch(() => []);
}

/** A loaded CLI, waiting for "go", that will append `line` to big.txt. */
function cliWorker(root: string, line: string): Worker {
  const text = patch("*** Update File: big.txt", "@@", " last line", `+${line}`);
  return new Worker("cli-once.ts", [CLI, "--cwd", root, text]);
}

/** Lets a loaded CLI run; kills it `killAfter` ms later (never, if undefined). */
async function run(worker: Worker, killAfter?: number) {
  const started = Date.now();
  worker.send("go");
  if (killAfter !== undefined) setTimeout(() => worker.child.kill("SIGKILL"), killAfter);
  await worker.exited;
  return { took: Date.now() - started, killed: worker.child.signalCode === "SIGKILL" };
}

describe("attack: kill -9 in the middle of a patch", () => {
  it(
    `leaves old or new bytes, an undoable run, and no temp file after the next run (${KILLS} kills)`,
    async () => {
      const { undoRun } = await importChapter<UndoModule>("src/ledger/undo.ts");
      const root = await scratch("crash");
      const base = Array.from({ length: 2_000 }, (_, i) => `line ${i} ${"y".repeat(1_000)}`);
      const original = [...base, "last line", ""].join("\n");
      await writeFile(path.join(root, "big.txt"), original);
      // Loading a CLI takes longer than a patch: every process loads at once, then each one runs.
      const warmUp = cliWorker(root, "warm-up");
      const victims = Array.from({ length: KILLS }, (_, kill) => cliWorker(root, `killed-${kill}`));
      const cleaner = cliWorker(root, "after");
      for (const worker of [warmUp, ...victims, cleaner]) {
        expect(await worker.nextLine(), worker.stderr).toBe("ready");
      }

      // One run to the end, to learn how long a patch takes; then undo it.
      const { took } = await run(warmUp);
      await undoRun(root, (await backupRuns(root))[0]);
      const problems: string[] = [];
      let killed = 0;
      for (const [kill, victim] of victims.entries()) {
        const runsBefore = await backupRuns(root);
        const outcome = await run(victim, Math.random() * took);
        if (outcome.killed) killed += 1;
        const now = await readFile(path.join(root, "big.txt"), "utf8");
        const patched = original.replace("last line\n", `last line\nkilled-${kill}\n`);
        if (now !== original && now !== patched) {
          problems.push(`kill ${kill}: big.txt is torn (${now.length} bytes)`);
          await writeFile(path.join(root, "big.txt"), original);
          continue;
        }
        const runId = (await backupRuns(root)).find((id) => !runsBefore.includes(id));
        const manifest = runId && path.join(root, ".agent", "backups", runId, "manifest.json");
        if (now === patched || (manifest !== undefined && existsSync(manifest))) {
          try {
            await undoRun(root, runId);
          } catch (error) {
            problems.push(`kill ${kill}: undo failed: ${(error as Error).message.split("\n")[0]}`);
          }
          if ((await readFile(path.join(root, "big.txt"), "utf8")) !== original) {
            problems.push(`kill ${kill}: big.txt not restored by undo`);
            await writeFile(path.join(root, "big.txt"), original);
          }
        }
      }
      // The next run cleans up what the killed ones left.
      await run(cleaner);
      const leftovers = (await listTree(root)).filter((name) => isTempName(path.basename(name)));

      report(
        "crash-loop",
        `${KILLS} runs, ${killed} killed: ${problems.length} problems, ${leftovers.length} temp files left`,
      );
      expect(killed).toBeGreaterThan(0);
      expect({ problems, leftovers }, `${killed} kills`).toEqual({ problems: [], leftovers: [] });
    },
    timeLimit(90),
  );
});
