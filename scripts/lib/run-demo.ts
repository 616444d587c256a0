// Runs a chapter's "break it" scenario on a chapter: `pnpm chapter N -- --demo` on its own
// chapter, `pnpm chapter N-1 -- --demo-of N` on the chapter before it.
//
// The chapter's program runs unchanged, as a child process, against a scripted world set up
// here: the offline model (started in this process, so it can also play "another program" that
// edits a file at the scripted moment), a scratch copy of the demo repository, and the
// scenario's arguments and input. The run is then checked against what the scenario says it
// shows, so a demo that stops demonstrating anything fails instead of quietly passing.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createWriteStream, existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { copyDemoRepo } from "../../shared/src/demo-repo.ts";
import {
  type ChatRequestBody,
  loadScript,
  SCRIPTED_DEMO_LABEL,
  startOfflineModel,
} from "../../shared/src/offline-model/index.ts";
import { chapterBundle } from "./chapter-bundle.ts";
import type { Chapter } from "./chapters.ts";
import type {
  GeneratedFile,
  Scenario,
  ScenarioEdit,
  ScenarioExpectation,
} from "./demo-scenario.ts";

// What `node --import tsx` loads, resolved here: the chapter runs in a scratch folder.
const TSX_LOADER = import.meta.resolve("tsx");
/** The chapter talks to the local offline model with no key; a real one must never reach it. */
const LOCAL_KEY = "local";

export interface DemoRun {
  /** Whether the run showed what the scenario says it shows. */
  ok: boolean;
  /** Everything printed, the chapter's output included, for tests and captures. */
  transcript: string;
}

export interface DemoOptions {
  /** Where the transcript goes as it is printed (default: this process's stdout). */
  write?: (text: string) => void;
  /** Keep the scratch workspace, for a reader to look at (default: removed after the run). */
  keepWorkspace?: boolean;
  /**
   * Start the chapter's program from a cached bundle (scripts/lib/chapter-bundle.ts) instead of
   * its source through tsx: the same code, rebuilt when a file changes, and a start several times
   * cheaper. For test/demos, which starts chapters about a hundred times. Unset for `pnpm chapter
   * N -- --demo` and scripts/capture-break-it.ts: what a reader runs (and the captures show) stays
   * the source under tsx, where an edit shows at once; the test then also checks that the bundle
   * prints what that run printed.
   */
  bundled?: boolean;
}

export async function runDemo(
  scenario: Scenario,
  owner: Chapter,
  target: Chapter,
  options: DemoOptions = {},
): Promise<DemoRun> {
  let transcript = "";
  const print = (text: string) => {
    transcript += text;
    (options.write ?? ((t: string) => process.stdout.write(t)))(text);
  };
  const expectation = target === owner ? scenario.expect : scenario.previous;
  if (expectation === undefined) {
    print(
      `chapter ${owner.number}'s scenario "${scenario.title}" cannot run on chapter ${target.number}: ` +
        `that chapter does not have what the scenario needs. Run it on chapter ${owner.number}: ` +
        `pnpm chapter ${owner.number} -- --demo\n`,
    );
    return { ok: false, transcript };
  }

  const workspace = await copyDemoRepo(`demo-${target.slug}-`);
  for (const [path, text] of Object.entries(scenario.files ?? {})) {
    await mkdir(dirname(join(workspace, path)), { recursive: true });
    await writeFile(join(workspace, path), text);
  }
  const generated: string[] = [];
  for (const file of scenario.generate ?? []) generated.push(await generateFile(workspace, file));
  // A folder outside the workspace, and links that lead to it: what a tool must not follow.
  const outside =
    scenario.outside || scenario.links ? await mkdtemp(join(tmpdir(), "demo-outside-")) : "";
  for (const [path, text] of Object.entries(scenario.outside ?? {})) {
    await mkdir(dirname(join(outside, path)), { recursive: true });
    await writeFile(join(outside, path), text);
  }
  for (const [path, target] of Object.entries(scenario.links ?? {})) {
    const to = target.replaceAll("{outside}", outside);
    await mkdir(dirname(join(workspace, path)), { recursive: true });
    await symlink(to, join(workspace, path));
    generated.push(`a link in the workspace: ${path} -> ${to}`);
  }
  const pending = [...(scenario.edits ?? [])];
  const script = expectation.script ?? scenario.script;
  const isAgent = (scenario.program ?? "agent") === "agent";
  // The patch tool asks no model, so only the agent gets one.
  const model =
    !isAgent || script === undefined
      ? undefined
      : await startOfflineModel({
          script: loadScript(script),
          faults: scenario.faults ?? [],
          apiKey: LOCAL_KEY,
          beforeStep: async (index) => {
            for (const edit of pending.filter((e) => e.beforeStep === index)) {
              pending.splice(pending.indexOf(edit), 1);
              await applyEdit(workspace, edit);
              print(`\n[scripted] ${edit.note}\n`);
            }
          },
        });

  const role = target === owner ? "its own chapter" : "the chapter before the lesson";
  print(`── ${SCRIPTED_DEMO_LABEL} ──\n`);
  print(
    `chapter ${owner.number}'s scenario "${scenario.title}", on chapter ${target.number} (${role})\n`,
  );
  print(`${scenario.story}\n`);
  const usesWorkspace = (scenario.args ?? []).some((arg) => arg.includes("{workspace}"));
  print(usesWorkspace || !isAgent ? `workspace: a scratch copy of the demo repository\n` : "");
  for (const line of generated) print(`${line}\n`);
  if (!isAgent) print(`$ apply-patch ${(scenario.args ?? []).join(" ")}\n`);
  print("\n");
  try {
    const fill = (args: string[]) => args.map((arg) => arg.replaceAll("{workspace}", workspace));
    const endpoint = model && { baseURL: model.baseURL, model: model.model };
    const program = await chapterProgram(target, scenario, options.bundled === true);
    let output = await runChapter(
      target,
      program,
      fill(scenario.args ?? []),
      workspace,
      scenario,
      endpoint,
      print,
    );
    for (const command of scenario.then ?? []) {
      print(`\n$ pnpm chapter ${target.number} -- ${command.join(" ")}\n`);
      output += await runChapter(
        target,
        program,
        fill(command),
        workspace,
        scenario,
        endpoint,
        print,
      );
    }
    // Shown files count as output: what a scenario points at may be in the ledger, not the terminal.
    for (const path of await expandShown(workspace, scenario.show ?? [])) {
      const text = await readFile(join(workspace, path), "utf8").catch(() => "(no such file)\n");
      print(`\n── ${path} after the run ──\n${text}${text.endsWith("\n") ? "" : "\n"}`);
      output += text;
    }
    const prompt = systemPrompt(model?.requests[0]);
    for (const text of [...(expectation.prompt ?? []), ...(expectation.notInPrompt ?? [])]) {
      const verb = prompt.includes(text) ? "contains" : "does not contain";
      print(`the system prompt the model received ${verb}: ${JSON.stringify(text)}\n`);
    }
    const missing = [
      ...(await unmet(expectation, output, workspace)),
      ...promptProblems(expectation, prompt),
    ];
    if (options.keepWorkspace) print(`\nthe scratch workspace is kept: ${workspace}\n`);
    print(`\nlook for: ${expectation.lookFor}\n`);
    if (missing.length === 0) {
      print(`── end of ${SCRIPTED_DEMO_LABEL}: the run showed what the scenario is about ──\n`);
      return { ok: true, transcript };
    }
    print(
      `── the run did NOT show what the scenario is about; missing:\n- ${missing.join("\n- ")}\n`,
    );
    return { ok: false, transcript };
  } finally {
    await model?.close();
    if (!options.keepWorkspace) await rm(workspace, { recursive: true, force: true });
    if (outside !== "" && !options.keepWorkspace)
      await rm(outside, { recursive: true, force: true });
  }
}

/** The system message of a request, as text ("" when there is none). */
function systemPrompt(request: ChatRequestBody | undefined): string {
  const first = request?.messages[0];
  if (first?.role !== "system") return "";
  return typeof first.content === "string" ? first.content : JSON.stringify(first.content);
}

function promptProblems(expectation: ScenarioExpectation, prompt: string): string[] {
  return [
    ...(expectation.prompt ?? [])
      .filter((text) => !prompt.includes(text))
      .map((text) => `a system prompt containing ${JSON.stringify(text)}`),
    ...(expectation.notInPrompt ?? [])
      .filter((text) => prompt.includes(text))
      .map((text) => `a system prompt without ${JSON.stringify(text)}`),
  ];
}

async function applyEdit(workspace: string, edit: ScenarioEdit): Promise<void> {
  const path = join(workspace, edit.path);
  const text = await readFile(path, "utf8");
  if (!text.includes(edit.find)) {
    throw new Error(`scenario edit: ${edit.path} does not contain ${JSON.stringify(edit.find)}`);
  }
  await writeFile(path, text.replace(edit.find, edit.replace));
}

/**
 * What Node is given to start the chapter's program: its source after the tsx loader, or the
 * path of its bundle (which makes process.argv[1] the source's path, as tsx does).
 */
async function chapterProgram(
  chapter: Chapter,
  scenario: Scenario,
  bundled: boolean,
): Promise<string[]> {
  const entry = join(
    chapter.dir,
    "src",
    scenario.program === "apply-patch" ? "apply-patch-cli.ts" : "main.ts",
  );
  return bundled ? [await chapterBundle(entry)] : ["--import", TSX_LOADER, entry];
}

/** Runs the chapter's own program; returns what it printed (stdout and stderr, interleaved). */
async function runChapter(
  chapter: Chapter,
  /** Node's arguments that start the program (chapterProgram). */
  program: string[],
  args: string[],
  workspace: string,
  scenario: Scenario,
  /** The offline model, for the agent; the patch tool gets none. */
  endpoint: { baseURL: string; model: string } | undefined,
  print: (text: string) => void,
): Promise<string> {
  const child = spawn(process.execPath, [...program, ...args], {
    cwd: workspace,
    env: {
      ...demoEnv(),
      ...scenario.env,
      ...(endpoint && { OPENAI_BASE_URL: endpoint.baseURL, AGENT_MODEL: endpoint.model }),
    },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let output = "";
  let partial = ""; // a line not finished yet: crash reports are filtered by whole lines
  const withoutCrashDetails = crashDetailsFilter();
  const show = (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split("\n");
    partial = lines.pop() ?? "";
    const text = withoutCrashDetails(lines)
      .map((line) => line + "\n")
      .join("");
    output += text;
    print(text);
  };
  child.stdout.on("data", show);
  child.stderr.on("data", show);
  child.stdin.end(scenario.input ? scenario.input.join("\n") + "\n" : "");
  const [code] = (await once(child, "close")) as [number | null];
  if (partial !== "") show(Buffer.from("\n"));
  print(`\n(chapter ${chapter.number} exited with ${code ?? "a signal"})\n`);
  return output;
}

/**
 * A process that runs out of memory prints V8's last collections, a native stack and a reason
 * that differ from run to run (machine addresses, timings, which limit was hit first). Only
 * the fact is kept, as one line, so that a capture of the run stays the same. Returns a filter
 * for the lines of one child's output.
 */
function crashDetailsFilter(): (lines: string[]) => string[] {
  let crashing = false;
  return (lines) =>
    lines.flatMap((line) => {
      if (line === "<--- Last few GCs --->") crashing = true;
      if (!crashing) return [line];
      return line.includes("JavaScript heap out of memory")
        ? ["FATAL ERROR: JavaScript heap out of memory (V8's details left out)"]
        : [];
    });
}

/** Writes a generated file by streaming its lines; returns a line saying what was made. */
async function generateFile(workspace: string, file: GeneratedFile): Promise<string> {
  const path = join(workspace, file.path);
  await mkdir(dirname(path), { recursive: true });
  const out = createWriteStream(path);
  let bytes = 0;
  for (let n = 1; n <= file.lines; n++) {
    const line = file.line.replaceAll("{n}", String(n)) + "\n";
    bytes += Buffer.byteLength(line);
    if (!out.write(line)) await once(out, "drain");
  }
  out.end();
  await once(out, "finish");
  const size = `${(bytes / 1e6).toFixed(0)} MB`;
  return `generated ${file.path}: ${file.lines.toLocaleString("en-US")} lines, ${size}`;
}

/** This environment without model settings or agent limits: the scenario sets what it needs. */
function demoEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (/^(OPENAI_|AGENT_)/.test(name) || /(API_KEY|TOKEN|SECRET)/i.test(name)) continue;
    env[name] = value;
  }
  return env;
}

/** The shown paths, with a "*" in a path's last part matched against the names in its folder. */
async function expandShown(workspace: string, paths: string[]): Promise<string[]> {
  const shown: string[] = [];
  for (const path of paths) {
    const slash = path.lastIndexOf("/");
    const [folder, name] = [path.slice(0, slash + 1), path.slice(slash + 1)];
    if (!name.includes("*")) {
      shown.push(path);
      continue;
    }
    const pattern = new RegExp(`^${name.split("*").map(escapeRegExp).join(".*")}$`);
    const names = await readdir(join(workspace, folder)).catch(() => [] as string[]);
    shown.push(
      ...names
        .filter((n) => pattern.test(n))
        .sort()
        .map((n) => folder + n),
    );
  }
  return shown;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

async function unmet(
  expectation: ScenarioExpectation,
  output: string,
  workspace: string,
): Promise<string[]> {
  const missing = expectation.output
    .filter((text) => !output.includes(text))
    .map((text) => `output containing ${JSON.stringify(text)}`);
  for (const text of expectation.absent ?? []) {
    if (output.includes(text)) missing.push(`output without ${JSON.stringify(text)}`);
  }
  for (const [path, text] of Object.entries(expectation.files ?? {})) {
    const actual = await readFile(join(workspace, path), "utf8").catch(() => "");
    if (!actual.includes(text)) missing.push(`${path} containing ${JSON.stringify(text)}`);
  }
  for (const path of expectation.missingFiles ?? []) {
    if (existsSync(join(workspace, path))) missing.push(`no file ${path}`);
  }
  return missing;
}
