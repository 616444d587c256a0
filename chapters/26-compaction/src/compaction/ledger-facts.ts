import type { CommandEvent, LedgerEvent } from "../ledger/ledger-events.ts";
import { MAX_PLAN_STEPS } from "../plan/plan.ts";

/**
 * The facts go into every compaction message and every resume message, so their size must not
 * grow with the run: a run that read 300 files would give facts bigger than the budget they free.
 * So each section keeps its latest lines (the plan's limit, so a plan is never cut), and a command
 * names a few of the files it changed. The ledger keeps them all.
 */
export const MAX_FACT_LINES = MAX_PLAN_STEPS;
export const MAX_COMMAND_CHANGES = 5;
/** Lengths at most: a 100 KB command (or task, or path) must not become a 100 KB fact. */
export const MAX_COMMAND_CHARS = 200;
export const MAX_FACT_LINE_CHARS = 300;
export const MAX_TASK_CHARS = 2_000;

/**
 * What the run did, as the ledger recorded it: the task, the files read and written, the
 * commands, the plan, what is still failing, the skills loaded. The harness wrote every line of
 * it around the tools, so unlike the model's memory it cannot be wrong about what happened; and it
 * is rebuilt from the same events every time, so the same run gives the same text.
 * `events` may hold several runs (a resumed run and the runs it continues), oldest first.
 */
export function ledgerFacts(events: readonly LedgerEvent[]): string {
  const task = events.find((event) => event.type === "run_start")?.task ?? "(unknown)";
  return [
    `Task: ${clip(task, MAX_TASK_CHARS)}`,
    ...section("Files read (sha256 of the bytes read)", readLines(events)),
    ...section("Files written", writeLines(events)),
    ...section("Commands run", commandsOf(events).map(commandLine)),
    ...section("Plan", planLines(events)),
    ...section("Open failures", failureLines(events)),
    ...section("Skills loaded (load one again if you need its steps)", skillLines(events)),
  ].join("\n");
}

/** The first 12 hex digits: enough to tell versions apart in a summary, 5 to 8 tokens instead of 33 to 39. */
export function shortHash(hash: string): string {
  return hash.slice(0, 12);
}

function section(title: string, lines: string[]): string[] {
  if (lines.length === 0) return [];
  const earlier = lines.length - MAX_FACT_LINES;
  const kept = earlier > 0 ? [`… and ${earlier} earlier`, ...lines.slice(earlier)] : lines;
  return [`${title}:`, ...kept.map((line) => `- ${clip(line, MAX_FACT_LINE_CHARS)}`)];
}

/** `text` cut to `max` characters, saying how much was cut (the ledger keeps it whole). */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}… (${text.length - max} more characters)`;
}

// The last read of each file; a later read replaces an earlier one.
function readLines(events: readonly LedgerEvent[]): string[] {
  const reads = new Map<string, string>();
  for (const event of events) {
    if (event.type !== "file_read") continue;
    reads.delete(event.path);
    reads.set(event.path, `${shortHash(event.sha256)} (${event.full ? "full" : "partial"})`);
  }
  return [...reads].map(([path, read]) => `${path} ${read}`);
}

function writeLines(events: readonly LedgerEvent[]): string[] {
  const writes = new Map<string, string>();
  for (const event of events) {
    if (event.type !== "file_written") continue;
    const status =
      event.after_sha256 === undefined
        ? "deleted"
        : event.before_sha256 === undefined
          ? "created"
          : "changed";
    // A file the run created and then edited is still one it created.
    const created = writes.get(event.path) === "created" && status === "changed";
    writes.set(event.path, created ? "created" : status);
  }
  return [...writes].map(([path, status]) => `${path}: ${status}`);
}

function commandsOf(events: readonly LedgerEvent[]): CommandEvent[] {
  return events.filter((event): event is CommandEvent => event.type === "command");
}

function commandLine(command: CommandEvent): string {
  const changes = command.changes.map((change) => `${change.status} ${change.path}`);
  const more = changes.length - MAX_COMMAND_CHANGES;
  if (more > 0) changes.splice(MAX_COMMAND_CHANGES, more, `${more} more`);
  return `\`${clip(command.command, MAX_COMMAND_CHARS)}\` → ${ending(command)}${changes.length === 0 ? "" : ` (${changes.join(", ")})`}`;
}

function ending(command: CommandEvent): string {
  if (command.timed_out) return "timed out";
  if (command.aborted) return "stopped by the user";
  return command.exit_code === null ? "killed" : `exit ${command.exit_code}`;
}

function planLines(events: readonly LedgerEvent[]): string[] {
  const plan = events.findLast((event) => event.type === "plan");
  return plan?.type === "plan" ? plan.steps.map((s) => `[${s.status}] ${s.step}`) : [];
}

/**
 * A failure is open until the same thing works: a command until it exits 0, a tool until a later
 * call of it succeeds. Commands are judged by their command events, which say more than the
 * run_command tool call does.
 */
function failureLines(events: readonly LedgerEvent[]): string[] {
  const open = new Map<string, string>();
  for (const event of events) {
    if (event.type === "command") {
      const key = `command ${event.command}`;
      if (event.exit_code === 0 && !event.timed_out) open.delete(key);
      else open.set(key, `\`${clip(event.command, MAX_COMMAND_CHARS)}\` → ${ending(event)}`);
    }
    if (event.type === "tool_call" && event.tool !== "run_command") {
      const key = `tool ${event.tool}`;
      if (event.outcome === "ok") open.delete(key);
      else open.set(key, `${event.tool} failed: ${event.code ?? "error"}`);
    }
  }
  return [...open.values()];
}

function skillLines(events: readonly LedgerEvent[]): string[] {
  const skills = new Set<string>();
  for (const event of events) {
    if (event.type === "skill_loaded") skills.add(`${event.name} (${event.path})`);
  }
  return [...skills];
}
