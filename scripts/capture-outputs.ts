// Runs each chapter's offline demo for real and writes what it prints to docs/outputs/NN.txt,
// which the chapter's page includes under "Run it". test/site/outputs-fresh.test.ts re-runs the
// capture and fails when a committed output no longer matches what the code prints.
//
//   pnpm exec tsx scripts/capture-outputs.ts            all chapters that have a demo below
//   pnpm exec tsx scripts/capture-outputs.ts 1 8        only chapters 1 and 8
import { spawn } from "node:child_process";
import { once } from "node:events";
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { loadScript } from "../shared/src/offline-model/index.ts";
import { chapterBundle } from "./lib/chapter-bundle.ts";
import { ROOT } from "./lib/chapters.ts";

export { ROOT };
export const OUTPUTS_DIR = join(ROOT, "docs", "outputs");
// What `node --import tsx` loads, resolved here: the demo runs in a scratch folder with no node_modules.
const TSX_LOADER = import.meta.resolve("tsx");

/** How a chapter's demo is run: what a reader types after `pnpm chapter N --`, pipes in, or sets. */
export interface Demo {
  args?: string[];
  /** Lines piped to stdin, one turn each. */
  input?: string[];
  /** Settings other than the model, e.g. a small AGENT_CONTEXT_TOKENS to show the budget at work. */
  env?: Record<string, string>;
  /** Folders of the demo's scratch workspace whose files are shown after the run, as `cat` would. */
  show?: string[];
}

export const DEMOS: Record<string, Demo> = {
  "01-model-client": { args: ["What does a coding agent need besides a model?"] },
  "02-conversation": {
    input: ["What is a monorepo?", "Why would I use one?", "/reset", "Why would I use one?"],
  },
  // No task: offline, chapter 3 runs its demo task on a scratch copy of the demo repository.
  "03-tools": {},
  // The same demo task: with nothing failing, the retries, the stall timer and the cap stay silent.
  "04-retries": {},
  // Offline, the demo task again: the key is never in the way, which is the point.
  "05-key-redaction": {},
  // No task: the demo task, every request counted and fitted (a chat that drops turns is break-it's).
  "06-context-budget": {},
  "07-tool-guards": {},
  // No task: the default task, the demo bug, fixed with edit_file (chapter 9: apply_patch).
  "08-workspace-search": {},
  "09-patch-format": {},
  "10-finding-hunks": { args: ["The total with a coupon is wrong. Find the bug and fix it."] },
  "11-hash-guard": { args: ["The total with a coupon is wrong. Find the bug and fix it."] },
  "12-safe-writes": { args: ["The total with a coupon is wrong. Find the bug and fix it."] },
  "13-multi-file-patches": { args: ["The total with a coupon is wrong. Find the bug and fix it."] },
  "14-run-ledger": {
    args: ["The total with a coupon is wrong. Find the bug and fix it."],
    show: [".agent/runs"],
  },
  "15-undo": {
    args: ["The total with a coupon is wrong. Find the bug and fix it."],
    show: [".agent/runs"],
  },
  "16-notes": {
    args: ["The total with a coupon is wrong. Find the bug and fix it."],
    show: [".agent/runs", ".agent/notes"],
  },
  "17-prompts": { args: ["--print-prompt"] },
  "18-agent-loop": {},
  "19-budgets": {},
  "20-human-in-the-loop": {},
  "21-optimization": {},
  "22-commands": {},
  "23-command-effects": {},
  "24-planning": {},
  "25-skills": {},
  "26-compaction": {},
  "27-repository-trust": {},
};

// The variables that would make a chapter talk to a real model: a capture always runs offline.
const MODEL_VARIABLES = [
  "OPENAI_API_KEY",
  "OPENAI_BASE_URL",
  "AGENT_MODEL",
  "FORCE_COLOR",
  "INIT_CWD",
];

export function outputPath(slug: string, dir = OUTPUTS_DIR): string {
  return join(dir, `${slug.slice(0, 2)}.txt`);
}

function shellQuote(arg: string): string {
  return /^[\w./=:-]+$/.test(arg) ? arg : `"${arg.replace(/(["\\$`])/g, "\\$1")}"`;
}

/** The command a reader types, as the first line of the capture. */
export function commandLine(slug: string, demo: Demo): string {
  const args = demo.args ?? [];
  const pipe = demo.input ? `printf '${demo.input.join("\\n")}\\n' | ` : "";
  const env = Object.entries(demo.env ?? {}).map(
    ([name, value]) => `${name}=${shellQuote(value)} `,
  );
  const command = `pnpm chapter ${Number(slug.slice(0, 2))}`;
  return `$ ${pipe}${env.join("")}${command}${args.length > 0 ? " -- " + args.map(shellQuote).join(" ") : ""}`;
}

/** Where the site's "Get the code" clones the repository, as a reader's terminal shows it. */
export const READER_CLONE = "/home/you/build-a-coding-agent";

/**
 * Runs one demo and returns what the terminal shows: stdout and stderr interleaved in order (both
 * go to the same file descriptor). It runs in an empty scratch folder, so no `.env` can switch it
 * to a real model, with TMPDIR inside that folder, so the demo's scratch repositories go away with
 * it; their paths are shown as /tmp/... as on a reader's machine. Like `pnpm chapter N`, it starts
 * one Node with the tsx loader (the tsx command would start two); `bundled` starts the chapter's
 * cached bundle instead (scripts/lib/chapter-bundle.ts), the same code at a fraction of the CPU,
 * which test/site/outputs-fresh.test.ts does: it then also checks that the bundle prints what the
 * reader's tsx run printed when the capture was written.
 */
export async function runDemo(
  slug: string,
  demo: Demo,
  options: { bundled?: boolean } = {},
): Promise<string> {
  const scratch = mkdtempSync(join(tmpdir(), "capture-"));
  const childTmp = join(scratch, "tmp");
  mkdirSync(childTmp);
  const logFile = join(scratch, "output.log");
  const log = openSync(logFile, "w");
  try {
    const env: NodeJS.ProcessEnv = { ...process.env, ...demo.env, NO_COLOR: "1", TMPDIR: childTmp };
    for (const name of MODEL_VARIABLES) delete env[name];
    const args = options.bundled
      ? [await chapterBundle(join(ROOT, "chapters", slug, "src", "main.ts")), ...(demo.args ?? [])]
      : [
          "--import",
          TSX_LOADER,
          join(ROOT, "scripts", "chapter.ts"),
          String(Number(slug.slice(0, 2))),
          ...(demo.args ?? []),
        ];
    const child = spawn(process.execPath, args, {
      cwd: scratch,
      env,
      stdio: ["pipe", log, log],
      timeout: 120_000,
    });
    child.stdin!.end(demo.input ? demo.input.join("\n") + "\n" : "");
    const [status, signal] = (await once(child, "exit")) as [number | null, string | null];
    const output = readFileSync(logFile, "utf8");
    if (status !== 0) {
      throw new Error(`${commandLine(slug, demo)} exited with ${status ?? signal}:\n${output}`);
    }
    const shown = (demo.show ?? []).map((folder) => showFiles(childTmp, folder)).join("");
    return (
      `${commandLine(slug, demo)}\n${output}${shown}`
        .replaceAll(childTmp, "/tmp")
        // The demo ran in an empty folder; a reader runs it from the repository they cloned.
        .replaceAll(scratch, READER_CLONE)
    );
  } finally {
    closeSync(log);
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** `$ cat` of every file in `folder` of the (one) scratch workspace the demo left in `tmp`. */
function showFiles(tmp: string, folder: string): string {
  const workspace = readdirSync(tmp).map((name) => join(tmp, name))[0];
  const dir = workspace === undefined ? undefined : join(workspace, folder);
  if (dir === undefined || !existsSync(dir)) return `\n(no ${folder} after the run)\n`;
  return readdirSync(dir)
    .sort()
    .map((name) => `\n$ cat ${folder}/${name}\n${readFileSync(join(dir, name), "utf8")}`)
    .join("");
}

/** What may differ between two honest runs: scratch folders, ports, times, run ids, token counts. */
export function normaliseOutput(text: string): string {
  return (
    text
      .replace(/\/tmp\/[\w.-]+/g, "<tmp>")
      .replace(/(127\.0\.0\.1|localhost):\d+/g, "$1:<port>")
      .replace(/\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z\b/g, "<time>")
      // Run ids: a time stamp and a random tag, e.g. 20261130-073849-5f677e (chapter 14 on) or
      // 2026-11-30T07-31-50-275Z-10359-w7cn (chapter 13's backups).
      .replace(/\b\d{8}-\d{6}-[0-9a-f]{6}\b/g, "<run>")
      .replace(/\b\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d+Z-\d+-\w+/g, "<run>")
      .replace(/\b\d{4}-\d\d-\d\d\b/g, "<date>")
      .replace(/\b\d+(\.\d+)? ?(ms|s)\b/g, "<duration>")
      // Token counts move with the length of those random paths when a prompt contains one.
      .replace(/^.*\btokens\b.*$/gm, (line) => line.replace(/\d+/g, "<n>"))
      .replace(/(_tokens":|"tokens_\w+":)\d+/g, "$1<n>")
      .replace(/("duration_ms":)\d+/g, "$1<n>")
      // The process of a run (chapter 26's run_start records it, to tell a running run from a crashed one).
      .replace(/("pid(?:_start)?":)\d+/g, "$1<pid>")
      // Chapter 22 on a machine where bubblewrap does not work: the same run, plus two lines
      // saying the commands ran unconfined.
      .replace(/^.*no sandbox: bwrap.*\n/gm, "")
      .replace(/^.*sandbox: none \(bwrap.*\n/gm, "")
      .replace(/("sandbox":)"(none|bubblewrap)"/g, '$1"<sandbox>"')
  );
}

/** The chapters with a demo whose code exists (a chapter being written has no src/main.ts yet). */
export function capturableChapters(): string[] {
  return Object.keys(DEMOS).filter((slug) =>
    existsSync(join(ROOT, "chapters", slug, "src", "main.ts")),
  );
}

export const DEMO_PATCH_FILE = join(OUTPUTS_DIR, "demo-patch.txt");

/**
 * The patch the offline model sends in the bug-fix demo (shared/scripts/fix-bug.json), which
 * chapter 13's page shows as its example of the format: taken from the script, so the page shows
 * exactly what the demo sends.
 */
export function demoPatch(): string {
  const call = loadScript("fix-bug")
    .steps.flatMap((step) => step.reply.toolCalls ?? [])
    .find((toolCall) => toolCall.name === "apply_patch");
  const patch = call && (JSON.parse(call.arguments) as { patch?: string }).patch;
  if (patch === undefined) throw new Error("shared/scripts/fix-bug.json sends no apply_patch call");
  return patch;
}

export async function captureAll(slugs = capturableChapters(), dir = OUTPUTS_DIR): Promise<void> {
  mkdirSync(dir, { recursive: true });
  for (const slug of slugs) {
    writeFileSync(outputPath(slug, dir), await runDemo(slug, DEMOS[slug] ?? {}));
  }
  writeFileSync(join(dir, "demo-patch.txt"), demoPatch());
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const wanted = process.argv.slice(2).map((arg) => arg.padStart(2, "0"));
  const slugs = capturableChapters().filter(
    (slug) => wanted.length === 0 || wanted.includes(slug.slice(0, 2)),
  );
  await captureAll(slugs);
  for (const slug of slugs) console.log(`wrote ${outputPath(slug).slice(ROOT.length + 1)}`);
  console.log(`wrote ${DEMO_PATCH_FILE.slice(ROOT.length + 1)}`);
}
