// Shared pieces of the attack suite: which chapter is attacked, how hard, scratch folders, and
// child processes that play the other writer.
//
// The attacks run against the newest chapter with an apply-patch command line, or against the
// chapter folder named by ATTACK_CHAPTER_DIR (a copy of an older commit, to measure "before").
// ATTACK_SCALE multiplies every attack's number of trials: 1 in `pnpm test`, more in `pnpm stress`.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach } from "vitest";
import { chapterBundle } from "../../scripts/lib/chapter-bundle.ts";
import { newestChapterFile } from "../../scripts/lib/chapters.ts";

export const SCALE = Math.max(1, Number(process.env.ATTACK_SCALE ?? "1"));

/** The attacked chapter's folder. */
export const CHAPTER_DIR =
  process.env.ATTACK_CHAPTER_DIR ??
  path.dirname(path.dirname(newestChapterFile("src/apply-patch-cli.ts")!));

export const CLI = path.join(CHAPTER_DIR, "src", "apply-patch-cli.ts");

/**
 * The attacked chapter's agent (its src/main.ts) as a cached bundle, to start with
 * `node BUNDLE ARGS`: the same code as `node --import tsx main.ts`, argv[1] included, at a
 * fraction of tsx's start-up (scripts/lib/chapter-bundle.ts).
 */
export function mainBundle(): Promise<string> {
  return chapterBundle(path.join(CHAPTER_DIR, "src", "main.ts"));
}

/** One line of trials and failures: printed by `pnpm stress`, or with ATTACK_REPORT=1. */
export function report(attack: string, line: string): void {
  if (SCALE > 1 || process.env.ATTACK_REPORT) console.log(`[attack] ${attack}: ${line}`);
}

/** A test's time limit, grown with the scale so `pnpm stress` is not cut short. */
export function timeLimit(seconds: number): number {
  return seconds * 1000 * SCALE;
}

// The parts of the chapter's API the attacks use (the same in every chapter from 11 on).
export interface PatchResult {
  success: boolean;
  failures: { path: string; code: string; message: string }[];
}
export interface ApplyPatchModule {
  applyPatch(
    text: string,
    options: { cwd: string; runId?: string; expect?: (p: string) => string | undefined },
  ): Promise<PatchResult>;
}
export interface UndoModule {
  undoRun(cwd: string, runId?: string): Promise<unknown>;
}

export async function importChapter<T>(relative: string): Promise<T> {
  return (await import(pathToFileURL(path.join(CHAPTER_DIR, relative)).href)) as T;
}

const created: string[] = [];
afterEach(async () => {
  await Promise.all(created.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A scratch folder, removed after the test. */
export async function scratch(name: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), `attack-${name}-`));
  created.push(dir);
  return dir;
}

export function sha256(bytes: string | Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

export function patch(...lines: string[]): string {
  return ["*** Begin Patch", ...lines, "*** End Patch", ""].join("\n");
}

/** Our temp files: chapter 12's `.name.<hex>.tmp` and chapter 14's `.name.<pid>-<hex>.agent-tmp`. */
export function isTempName(name: string): boolean {
  return /\.[0-9a-f]{12}\.tmp$/.test(name) || name.endsWith(".agent-tmp");
}

/** Every file and folder under `dir`, as "/"-separated relative paths (folders end in "/"). */
export async function listTree(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .map((entry) => {
      const rel = path.relative(dir, path.join(entry.parentPath, entry.name));
      return rel.split(path.sep).join("/") + (entry.isDirectory() ? "/" : "");
    })
    .sort();
}

const TSX = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
const WORKERS = path.join(path.dirname(fileURLToPath(import.meta.url)), "workers");

/** A worker script of test/attacks/workers, started with tsx; its stdout is read line by line. */
export class Worker {
  readonly child: ChildProcessWithoutNullStreams;
  private readonly lines: string[] = [];
  private waiting?: () => void;
  readonly exited: Promise<number | null>;
  stderr = "";

  constructor(script: string, args: string[]) {
    this.child = spawn(process.execPath, ["--import", TSX, path.join(WORKERS, script), ...args]);
    this.child.stderr.on("data", (chunk: Buffer) => (this.stderr += chunk.toString()));
    createInterface({ input: this.child.stdout }).on("line", (line) => {
      this.lines.push(line);
      this.waiting?.();
    });
    this.exited = new Promise((resolve) => this.child.on("close", (code) => resolve(code)));
  }

  /** Waits for the next line the worker prints (undefined once it has exited without one). */
  async nextLine(): Promise<string | undefined> {
    for (;;) {
      const line = this.lines.shift();
      if (line !== undefined) return line;
      const exited = this.exited.then(() => "exited" as const);
      const printed = new Promise<"line">((resolve) => (this.waiting = () => resolve("line")));
      if ((await Promise.race([exited, printed])) === "exited" && this.lines.length === 0) {
        return undefined;
      }
    }
  }

  send(line: string): void {
    this.child.stdin.write(line + "\n");
  }

  async stop(): Promise<void> {
    this.child.stdin.end();
    this.child.kill("SIGKILL");
    await this.exited;
  }
}
