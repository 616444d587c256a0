// A chapter's "break it" scenario: a scripted world (offline model turns, faults, a workspace,
// another program's edits) in which the chapter's lesson makes a visible difference. Run on the
// chapter, the lesson refuses or fixes; run on the chapter before, the failure happens.
//
// Scenarios live in shared/scenarios/<chapter slug>.json; the format is checked here, so a typo
// fails loudly instead of making a demo that shows nothing.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { FAULT_FIELDS, type Fault } from "../../shared/src/offline-model/index.ts";
import { ROOT } from "./chapters.ts";

export const SCENARIOS_DIR = join(ROOT, "shared", "scenarios");

/** Another program changes a file of the workspace right before the model's step `beforeStep`. */
export interface ScenarioEdit {
  beforeStep: number;
  path: string;
  find: string;
  replace: string;
  /** Printed when the edit happens, e.g. "a teammate changes the tax rate in src/cart.mjs". */
  note: string;
}

/** What the output must contain for the run to have shown what the scenario is about. */
export interface ScenarioExpectation {
  /** Shown after the run: what the reader should notice. */
  lookFor: string;
  /** Texts the chapter's output (stdout and stderr) or a shown file contains, in any order. */
  output: string[];
  /** Texts the output does not contain. */
  absent?: string[];
  /** Files whose text must contain a given string after the run. */
  files?: Record<string, string>;
  /** Files that must not exist after the run. */
  missingFiles?: string[];
  /**
   * The offline model's script for this run, when it differs from the scenario's: a chapter
   * without a tool cannot be sent calls to it, so on the chapter before, the model answers
   * without it.
   */
  script?: string;
  /** Texts the system prompt of the model's first request contains. */
  prompt?: string[];
  /** Texts it does not contain: what the model was never told. */
  notInPrompt?: string[];
}

/** A big file written into the workspace line by line: `line` with "{n}" as the line number. */
export interface GeneratedFile {
  path: string;
  lines: number;
  line: string;
}

export interface Scenario {
  title: string;
  /** A paragraph printed before the run: the situation, and what goes wrong without the lesson. */
  story: string;
  /**
   * What runs: the agent (src/main.ts, the default) against the offline model, or the
   * standalone patch tool (src/apply-patch-cli.ts), which needs no model.
   */
  program?: "agent" | "apply-patch";
  /** The offline model's script (shared/scripts/<name>.json); for the agent only. */
  script?: string;
  faults?: Fault[];
  /** Files written into the scratch copy of the demo repository before the run. */
  files?: Record<string, string>;
  /** Files too big to write out in the scenario, generated before the run. */
  generate?: GeneratedFile[];
  /** Files written into a scratch folder beside the workspace, outside it (removed after the run). */
  outside?: Record<string, string>;
  /** Symlinks made in the workspace, path -> target; "{outside}" in a target is that folder. */
  links?: Record<string, string>;
  edits?: ScenarioEdit[];
  /** The chapter's command-line arguments; "{workspace}" is replaced by the scratch folder. */
  args?: string[];
  /** Lines piped to the chapter's stdin. */
  input?: string[];
  /** More commands of the same chapter, run after the first in the same workspace (e.g. undo). */
  then?: string[][];
  /** Settings other than the model, e.g. a small AGENT_CONTEXT_TOKENS. */
  env?: Record<string, string>;
  /** Workspace files printed after the run; a "*" in the last part matches any name there. */
  show?: string[];
  /** On this scenario's own chapter. */
  expect: ScenarioExpectation;
  /** On the chapter before it; absent when that chapter cannot run the scenario at all. */
  previous?: ScenarioExpectation;
}

export function scenarioPath(slug: string): string {
  return join(SCENARIOS_DIR, `${slug}.json`);
}

export function hasScenario(slug: string): boolean {
  return existsSync(scenarioPath(slug));
}

export function loadScenario(slug: string): Scenario {
  const path = scenarioPath(slug);
  const value: unknown = JSON.parse(readFileSync(path, "utf8"));
  const problems = scenarioProblems(value);
  if (problems.length > 0) {
    throw new Error(`${path} is not a valid scenario:\n- ${problems.join("\n- ")}`);
  }
  return value as Scenario;
}

const KEYS = new Set([
  "title",
  "story",
  "program",
  "script",
  "generate",
  "outside",
  "links",
  "faults",
  "files",
  "edits",
  "args",
  "input",
  "then",
  "env",
  "show",
  "expect",
  "previous",
]);

/** Everything wrong with a parsed scenario file, as sentences; empty when it is valid. */
export function scenarioProblems(value: unknown): string[] {
  if (!isRecord(value)) return ["the file must hold a JSON object"];
  const problems: string[] = [];
  for (const key of Object.keys(value)) {
    if (!KEYS.has(key)) problems.push(`unknown key "${key}"`);
  }
  for (const key of ["title", "story"]) {
    if (typeof value[key] !== "string") problems.push(`"${key}" must be a string`);
  }
  if (value.program !== undefined && value.program !== "agent" && value.program !== "apply-patch") {
    problems.push(`"program" must be "agent" or "apply-patch"`);
  }
  if (value.program !== "apply-patch" && typeof value.script !== "string") {
    problems.push(`"script" must be a string: the offline model's script for the agent`);
  }
  if (value.generate !== undefined) {
    const files = Array.isArray(value.generate) ? value.generate : [undefined];
    files.forEach((file: unknown, i) => {
      const ok =
        isRecord(file) &&
        typeof file.path === "string" &&
        typeof file.line === "string" &&
        Number.isInteger(file.lines) &&
        (file.lines as number) > 0;
      if (!ok) problems.push(`generate[${i}] needs path, line (strings) and lines (a count)`);
    });
  }
  for (const key of ["args", "input", "show"]) {
    if (value[key] !== undefined && !isStringArray(value[key])) {
      problems.push(`"${key}" must be an array of strings`);
    }
  }
  for (const key of ["files", "env", "outside", "links"]) {
    if (value[key] !== undefined && !isStringRecord(value[key])) {
      problems.push(`"${key}" must map names to strings`);
    }
  }
  if (
    value.then !== undefined &&
    !(Array.isArray(value.then) && value.then.every((command) => isStringArray(command)))
  ) {
    problems.push(`"then" must be an array of commands, each an array of strings`);
  }
  if (value.faults !== undefined) {
    const faults = Array.isArray(value.faults) ? value.faults : undefined;
    if (faults === undefined) problems.push(`"faults" must be an array`);
    faults?.forEach((fault: unknown, i) => problems.push(...faultProblems(fault, i)));
  }
  if (value.edits !== undefined) {
    const edits = Array.isArray(value.edits) ? value.edits : [undefined];
    edits.forEach((edit: unknown, i) => {
      const ok =
        isRecord(edit) &&
        typeof edit.beforeStep === "number" &&
        ["path", "find", "replace", "note"].every((k) => typeof edit[k] === "string");
      if (!ok) problems.push(`edits[${i}] needs beforeStep (number), path, find, replace, note`);
    });
  }
  problems.push(...expectationProblems("expect", value.expect));
  if (value.previous !== undefined) {
    problems.push(...expectationProblems("previous", value.previous));
  }
  return problems;
}

/** A fault of a kind the offline model does not know would be ignored: the run would show nothing. */
function faultProblems(fault: unknown, i: number): string[] {
  const kinds = Object.keys(FAULT_FIELDS);
  const kind = isRecord(fault) && typeof fault.kind === "string" ? fault.kind : undefined;
  if (kind === undefined || !kinds.includes(kind)) {
    return [`faults[${i}] needs a kind, one of ${kinds.join(", ")}`];
  }
  return FAULT_FIELDS[kind as Fault["kind"]]
    .filter((field) => typeof (fault as Record<string, unknown>)[field] !== "number")
    .map((field) => `faults[${i}] (${kind}) needs ${field} (a number)`);
}

function expectationProblems(key: string, value: unknown): string[] {
  const ok =
    isRecord(value) &&
    typeof value.lookFor === "string" &&
    isStringArray(value.output) &&
    (value.files === undefined || isStringRecord(value.files)) &&
    (value.script === undefined || typeof value.script === "string") &&
    (value.absent === undefined || isStringArray(value.absent)) &&
    (value.missingFiles === undefined || isStringArray(value.missingFiles)) &&
    (value.prompt === undefined || isStringArray(value.prompt)) &&
    (value.notInPrompt === undefined || isStringArray(value.notInPrompt));
  return ok
    ? []
    : [
        `"${key}" needs lookFor (string), output (strings), optional script, absent, files, missingFiles, prompt and notInPrompt`,
      ];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return isRecord(value) && Object.values(value).every((item) => typeof item === "string");
}
