// Attack: damaged ledgers and odd trees (issue 21, items 6 to 8). A hostile command, a crash or a
// full disk leaves .agent/runs/ or the workspace in a state the harness did not write: a garbage
// line, an invalid event, an empty ledger (kill -9 at run start), a folder or a FIFO named
// x.jsonl, a torn line in the middle, a harness killed mid-command; a folder named in invalid UTF-8, a folder swapped for a link
// to outside, a change hidden behind .gitignore or 5,000 junk files, a changed .git/config.
// Each must end in a one-line refusal or a skipped file with a notice: no stack trace, no hang,
// no write outside the workspace, no change that goes unrecorded without a word.
import { execFile, spawnSync } from "node:child_process";
import { appendFile, mkdir, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import {
  CHAPTER_DIR,
  importChapter,
  mainBundle,
  report,
  SCALE,
  scratch,
  timeLimit,
} from "./attack-kit.ts";

const execFileAsync = promisify(execFile);
const TSX = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;

interface Outcome {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  aborted: boolean;
  durationMs: number;
  output: string;
}
interface Ledger {
  runId: string;
  finish(reason: string): Promise<void>;
}
interface Chapter {
  RunLedger: { open(cwd: string, info: { task: string; model: string }): Promise<Ledger> };
  trackCommand(
    ledger: Ledger,
    root: string,
    command: string,
    run: () => Promise<Outcome>,
    sandbox: string,
    limits?: { maxFiles: number; maxTotalBytes: number; maxFileBytes: number },
  ): Promise<{ changes: { path: string; status: string }[]; notices?: string[] }>;
}

type Limits = Parameters<Chapter["trackCommand"]>[5];

async function chapter(): Promise<Chapter> {
  const { RunLedger } = await importChapter<Pick<Chapter, "RunLedger">>("src/ledger/run-ledger.ts");
  const { trackCommand } = await importChapter<Pick<Chapter, "trackCommand">>(
    "src/commands/track-command.ts",
  );
  return { RunLedger, trackCommand };
}

/** A run with one command that changed a.txt: the run undo should find, whatever else is there. */
async function goodRun(cwd: string, work?: () => Promise<void>, limits?: Limits) {
  const { RunLedger, trackCommand } = await chapter();
  await writeFile(path.join(cwd, "a.txt"), "old\n");
  const ledger = await RunLedger.open(cwd, { task: "t", model: "m" });
  const ok = { exitCode: 0, signal: null, timedOut: false, aborted: false, durationMs: 1 };
  const tracked = await trackCommand(
    ledger,
    cwd,
    "edit",
    async () => {
      await writeFile(path.join(cwd, "a.txt"), "new\n");
      await work?.();
      return { ...ok, output: "" };
    },
    "none",
    limits,
  );
  await ledger.finish("done");
  return { runId: ledger.runId, tracked };
}

/**
 * `pnpm start -- resume RUN_ID` and then `pnpm start -- undo` in `cwd`, as the user runs them, in
 * one process (each start of the chapter costs seconds): exit codes and what each printed.
 */
function resumeThenUndo(cwd: string, runId: string) {
  const main = pathToFileURL(path.join(CHAPTER_DIR, "src", "main.ts")).href;
  const script = `
    const { main } = await import(${JSON.stringify(main)});
    const out = [];
    for (const args of [["resume", ${JSON.stringify(runId)}, "--commands", "deny"], ["undo"]]) {
      const [write, error] = [process.stdout.write, process.stderr.write];
      let stdout = "", stderr = "";
      process.stdout.write = (s) => ((stdout += s), true);
      process.stderr.write = (s) => ((stderr += s), true);
      let code;
      try { code = await main(args); } catch (e) { code = "threw"; stderr += String(e?.stack); }
      [process.stdout.write, process.stderr.write] = [write, error];
      out.push({ code, out: stdout, err: stderr });
    }
    console.log(JSON.stringify(out));`;
  const result = spawnSync(
    process.execPath,
    ["--import", TSX, "--input-type=module", "-e", script],
    {
      cwd,
      encoding: "utf8",
      timeout: 30_000,
      env: { ...process.env, INIT_CWD: cwd, OPENAI_API_KEY: "" },
    },
  );
  if (result.signal) return { hung: result.signal, resume: undefined, undo: undefined };
  const [resume, undo] = JSON.parse(result.stdout.trim().split("\n").at(-1) ?? "[]") as {
    code: number | string;
    out: string;
    err: string;
  }[];
  return { hung: undefined, resume, undo };
}

/** `pnpm start -- undo` in `cwd`, as the user runs it: exit code and both streams. */
async function undoCli(cwd: string, runId?: string) {
  const result = spawnSync(
    process.execPath,
    [await mainBundle(), "undo", ...(runId ? [runId] : [])],
    { cwd, encoding: "utf8", timeout: 30_000, env: { ...process.env, INIT_CWD: cwd } },
  );
  return { code: result.status, signal: result.signal, out: result.stdout, err: result.stderr };
}

const runs = (cwd: string) => path.join(cwd, ".agent", "runs");
const goodLine = (runId: string) =>
  JSON.stringify({
    type: "run_start",
    time: "2020-01-01T00:00:00.000Z",
    run_id: runId,
    task: "old",
    model: "m",
    cwd: "/",
  });

// Each damage, written as a ledger named to sort after the good run (so it is the latest).
const DAMAGES: Array<{ kind: string; make: (file: string, trial: number) => Promise<unknown> }> = [
  { kind: "garbage line", make: (f, t) => writeFile(f, `${"x".repeat(t + 1)}\n`) },
  { kind: "invalid event", make: (f, t) => writeFile(f, `{"type":"bogus","n":${t}}\n`) },
  { kind: "empty ledger (kill -9 at run start)", make: (f) => writeFile(f, "") },
  { kind: "folder named x.jsonl", make: (f) => mkdir(f) },
  { kind: "FIFO named x.jsonl", make: (f) => execFileAsync("mkfifo", [f]) },
  {
    kind: "torn line in the middle",
    make: (f, t) =>
      writeFile(
        f,
        `${goodLine("x")}\n{"type":"run_e${"n".repeat(t)}\n{"type":"run_end","time":"t","reason":"done"}\n`,
      ),
  },
];

describe("attack: damaged ledgers", () => {
  it(
    "each damage leaves the other runs undoable and resumable, in one line, no stack trace, no hang",
    async () => {
      const trials = SCALE;
      const problems: string[] = [];
      for (const damage of DAMAGES) {
        let held = 0;
        for (let trial = 0; trial < trials; trial += 1) {
          const cwd = await scratch("damaged-ledger");
          const { runId } = await goodRun(cwd);
          const file = path.join(
            runs(cwd),
            `99999999-999999-${String(trial).padStart(6, "0")}.jsonl`,
          );
          await damage.make(file, trial);
          const { hung, resume, undo } = resumeThenUndo(cwd, path.basename(file, ".jsonl"));
          const failures = [
            hung && `resume or undo hung (${hung})`,
            resume && resume.code !== 1 && `resume of the damaged run: ${resume.code}`,
            resume && /\n\s+at /.test(resume.err) && "resume printed a stack trace",
            resume &&
              !resume.err.includes("Left out a damaged ledger:") &&
              "resume did not name the damaged ledger",
            undo && undo.code !== 0 && `undo: ${undo.code}: ${undo.err.split("\n")[0]}`,
            undo &&
              !undo.out.startsWith(`Undid run ${runId}: restored a.txt.`) &&
              "undo did not undo the good run",
            undo &&
              !undo.out.includes("Left out a damaged ledger:") &&
              "undo did not name the damaged ledger",
            (await readFile(path.join(cwd, "a.txt"), "utf8")) !== "old\n" && "a.txt not restored",
          ].filter(Boolean);
          if (failures.length === 0) held += 1;
          else problems.push(`${damage.kind} #${trial}: ${failures.join("; ")}`);
          await rm(file, { recursive: true, force: true });
        }
        report("damaged ledgers", `${damage.kind}: ${held}/${trials} held`);
      }
      expect(problems).toEqual([]);
    },
    timeLimit(240),
  );

  it("a full disk mid-append leaves no bad line: the ledger still reads", async () => {
    // The append path itself (chapter 14's JsonlAppender) is pinned in write-safety.test.ts on a
    // real 64 KB tmpfs; here the reader's side: a torn last line is dropped, not an error.
    const cwd = await scratch("torn-tail");
    const { runId } = await goodRun(cwd);
    await appendFile(path.join(runs(cwd), `${runId}.jsonl`), '{"type":"run_und');
    const undo = await undoCli(cwd);
    expect(undo.err).toBe("");
    expect(undo.out).toBe(`Undid run ${runId}: restored a.txt.\n`);
  });
});

describe("attack: kill -9 in the middle of a command", () => {
  it(
    "undo RUN_ID restores what the command had backed up",
    async () => {
      const trials = SCALE;
      let held = 0;
      const problems: string[] = [];
      for (let trial = 0; trial < trials; trial += 1) {
        const cwd = await scratch("kill-mid-command");
        await writeFile(path.join(cwd, "a.txt"), "old\n");
        const url = (file: string) =>
          JSON.stringify(pathToFileURL(path.join(CHAPTER_DIR, file)).href);
        const script = `
          const { RunLedger } = await import(${url("src/ledger/run-ledger.ts")});
          const { trackCommand } = await import(${url("src/commands/track-command.ts")});
          const { writeFile } = await import("node:fs/promises");
          const ledger = await RunLedger.open(${JSON.stringify(cwd)}, { task: "t", model: "m" });
          console.log(ledger.runId);
          await trackCommand(ledger, ${JSON.stringify(cwd)}, "edit", async () => {
            await writeFile(${JSON.stringify(path.join(cwd, "a.txt"))}, "half-done ${trial}\\n");
            process.kill(process.pid, "SIGKILL");
            await new Promise(() => {});
          }, "none");`;
        const child = spawnSync(
          process.execPath,
          ["--import", TSX, "--input-type=module", "-e", script],
          {
            encoding: "utf8",
            timeout: 30_000,
          },
        );
        const undo = await undoCli(cwd, child.stdout.trim());
        const now = await readFile(path.join(cwd, "a.txt"), "utf8");
        if (child.signal === "SIGKILL" && undo.code === 0 && now === "old\n") held += 1;
        else
          problems.push(
            `#${trial}: ${child.signal}, undo ${undo.code}: ${undo.err.split("\n")[0]}; a.txt ${JSON.stringify(now)}`,
          );
      }
      report("kill -9 mid-command", `${held}/${trials} undone`);
      expect(problems).toEqual([]);
    },
    timeLimit(60),
  );
});

describe("attack: odd trees", () => {
  it(
    "a hostile command cannot break tracking, hide its change, or make undo write outside",
    async () => {
      const trials = 2 * SCALE;
      const problems: string[] = [];
      const attacks: Array<{
        kind: string;
        run: (cwd: string, outside: string) => Promise<string[]>;
      }> = [
        {
          kind: "folder named in invalid UTF-8",
          run: async (cwd) => {
            await mkdir(Buffer.concat([Buffer.from(cwd + "/"), Buffer.from([0xff])]));
            const { tracked } = await goodRun(cwd);
            return tracked.changes.some((c) => c.path === "a.txt") ? [] : ["a.txt's change lost"];
          },
        },
        {
          kind: "folder replaced by a link to outside",
          run: async (cwd, outside) => {
            await mkdir(path.join(cwd, "src"));
            await writeFile(path.join(cwd, "src", "a.ts"), "A\n");
            await goodRun(cwd, async () => {
              await rm(path.join(cwd, "src"), { recursive: true });
              await symlink(outside, path.join(cwd, "src"));
            });
            const undo = await undoCli(cwd);
            return [
              undo.code !== 1 && `undo exited ${undo.code}`,
              /\n\s+at /.test(undo.err) && "undo printed a stack trace",
              !undo.err.includes(
                "src is now a symbolic link, and undo never writes through a link",
              ) && `undo said: ${undo.err.split("\n")[0]}`,
              (await readdir(outside)).length > 0 && "undo wrote through the link",
            ].filter((x): x is string => typeof x === "string");
          },
        },
        {
          // The run's before.pack (what undo needs after a kill mid-command) is in .agent/, where a
          // command can write: swapped for a link, the next append must not go through it.
          kind: "before.pack replaced by a link to outside",
          run: async (cwd, outside) => {
            const { RunLedger, trackCommand } = await chapter();
            const { undoRun } = await importChapter<{
              undoRun(cwd: string, runId?: string): Promise<{ restored: string[] }>;
            }>("src/ledger/undo.ts");
            const victim = path.join(outside, "victim.txt");
            await writeFile(victim, "the user's own file\n");
            await writeFile(path.join(cwd, "a.txt"), "old\n");
            const ledger = await RunLedger.open(cwd, { task: "t", model: "m" });
            const pack = path.join(cwd, ".agent", "backups", ledger.runId, "before.pack");
            const ok = {
              exitCode: 0,
              signal: null,
              timedOut: false,
              aborted: false,
              durationMs: 1,
            };
            const command = (work: () => Promise<void>) =>
              trackCommand(
                ledger,
                cwd,
                "edit",
                async () => (await work(), { ...ok, output: "" }),
                "none",
              );
            await command(async () => {
              await writeFile(path.join(cwd, "a.txt"), "new\n");
              await rm(pack);
              await symlink(victim, pack);
            });
            const second = await command(async () => {}).then(
              () => "ran",
              (error: Error) => error.message,
            );
            await ledger.finish("done");
            const undone = await undoRun(cwd, ledger.runId).catch((error: Error) => error.message);
            return [
              !second.startsWith("The command was not run: backing up the workspace failed") &&
                `the next command: ${second}`,
              (await readFile(victim, "utf8")) !== "the user's own file\n" &&
                "the victim was written through the link",
              (typeof undone === "string" || undone.restored.join() !== "a.txt") &&
                `undo: ${JSON.stringify(undone)}`,
              (await readFile(path.join(cwd, "a.txt"), "utf8")) !== "old\n" && "a.txt not restored",
            ].filter((x): x is string => typeof x === "string");
          },
        },
        {
          kind: "change hidden by .gitignore",
          run: async (cwd) => {
            await mkdir(path.join(cwd, "src"));
            await writeFile(path.join(cwd, "src", "a.ts"), "A\n");
            const { tracked } = await goodRun(cwd, async () => {
              await writeFile(path.join(cwd, "src", "a.ts"), "EVIL\n");
              await writeFile(path.join(cwd, ".gitignore"), "src/\n");
            });
            return tracked.changes.some((c) => c.path === "src/a.ts")
              ? []
              : ["src/a.ts unrecorded"];
          },
        },
        {
          kind: "5,010 junk files ahead of the change",
          run: async (cwd) => {
            await writeFile(path.join(cwd, "z.txt"), "old\n");
            // At a cap of 5,000 files: filling the default's 50,000 would take a minute a trial.
            const limits = { maxFiles: 5_000, maxTotalBytes: 50 << 20, maxFileBytes: 5 << 20 };
            const work = async () => {
              await mkdir(path.join(cwd, "aaa"));
              for (let i = 0; i < 5_010; i += 1) await writeFile(path.join(cwd, "aaa", `${i}`), "");
              await writeFile(path.join(cwd, "z.txt"), "new\n");
            };
            const { tracked } = await goodRun(cwd, work, limits);
            return [
              !tracked.changes.some((c) => c.path === "z.txt") && "z.txt unrecorded",
              !(tracked.notices ?? []).some((n) => n.includes("files were not checked")) &&
                "no notice of the skipped files",
            ].filter((x): x is string => typeof x === "string");
          },
        },
        {
          kind: "core.fsmonitor written into .git/config",
          run: async (cwd) => {
            await mkdir(path.join(cwd, ".git"));
            await writeFile(path.join(cwd, ".git", "config"), "[core]\n");
            const { tracked } = await goodRun(cwd, () =>
              writeFile(path.join(cwd, ".git", "config"), "[core]\n\tfsmonitor = evil\n"),
            );
            return tracked.changes.some((c) => c.path === ".git/config")
              ? []
              : [".git/config unrecorded"];
          },
        },
      ];
      for (const attack of attacks) {
        let held = 0;
        for (let trial = 0; trial < trials; trial += 1) {
          const cwd = await scratch("odd-tree");
          const outside = await scratch("odd-tree-outside");
          const failures = await attack
            .run(cwd, outside)
            .catch((error: Error) => [`threw: ${error.message}`]);
          if (failures.length === 0) held += 1;
          else problems.push(`${attack.kind} #${trial}: ${failures.join("; ")}`);
        }
        report("odd trees", `${attack.kind}: ${held}/${trials} held`);
      }
      expect(problems).toEqual([]);
    },
    timeLimit(240),
  );
});
