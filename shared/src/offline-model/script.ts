// A script is the offline model's whole "intelligence": a fixed list of assistant
// turns, replayed in order. Scripts are data (shared/scripts/*.json) so a reader can
// see that nothing is generated, and so tests can pin exactly what the "model" says.

import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { ChatRequestBody, WireMessage } from "./wire-types.ts";

export interface ScriptedToolCall {
  id: string;
  name: string;
  /** Raw JSON text, exactly as a model would send it. */
  arguments: string;
}

export interface ScriptStep {
  /** Checks on the incoming request; a failed check answers an off-script error. */
  expect?: {
    lastMessageRole?: "user" | "tool";
    /** The tool messages after the last assistant message must include one for this tool_call_id. */
    toolResultFor?: string;
    /** Substring of the last message's text content. */
    lastMessageIncludes?: string;
  };
  reply: { content?: string; toolCalls?: ScriptedToolCall[] };
}

export interface Script {
  name: string;
  description: string;
  steps: ScriptStep[];
  /** When true, requests past the end replay the last step (a chat that never runs out). */
  repeatLastStep?: boolean;
  /**
   * When true, the script was written for the demo repository (shared/demo-repo). A tool result
   * saying a file it reads does not exist means the run points at another folder: the demo says
   * so and stops, instead of replaying a fix of files that are not there.
   */
  demoRepository?: boolean;
  /**
   * When true, steps are replayed in the order requests arrive, not by the number of assistant
   * messages in the request: for a harness that rewrites its history (compaction), that count no
   * longer says where the run is. Stateful, so do not combine it with faults that make the
   * client retry a request that was answered.
   */
  sequential?: boolean;
}

/** Thrown for a script file that is missing or malformed. */
export class ScriptError extends Error {
  override name = "ScriptError";
}

export const SCRIPTS_DIR = fileURLToPath(new URL("../../scripts/", import.meta.url));

/** Placeholder in `reply.content`, replaced with the last user message's text. */
export const LAST_USER_MESSAGE_PLACEHOLDER = "{{last_user_message}}";

/** Names of the scripts in shared/scripts, sorted. */
export function listScripts(): string[] {
  return readdirSync(SCRIPTS_DIR)
    .filter((file) => file.endsWith(".json"))
    .map((file) => file.slice(0, -".json".length))
    .sort();
}

/** Reads shared/scripts/<name>.json and checks its shape. */
export function loadScript(name: string): Script {
  if (!/^[a-z0-9][a-z0-9-]*$/.test(name)) {
    throw new ScriptError(
      `invalid script name "${name}": use the file name without ".json" (lowercase letters, digits, dashes). Available scripts: ${listScripts().join(", ")}.`,
    );
  }
  const path = `${SCRIPTS_DIR}${name}.json`;
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    throw new ScriptError(
      `unknown script "${name}": there is no file ${path}. Available scripts: ${listScripts().join(", ")}.`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ScriptError(
      `invalid script ${path}: not valid JSON (${(error as Error).message}). Fix the file's syntax.`,
    );
  }
  const script = parseScript(value, path);
  if (script.name !== name) {
    throw new ScriptError(
      `invalid script ${path}: "name" is "${script.name}" but the file is ${name}.json. Make them match.`,
    );
  }
  return script;
}

/**
 * Checks that `value` has the shape of a Script and returns it. Tool-call arguments
 * may be written as a JSON object for readability; they become JSON text here.
 */
export function parseScript(value: unknown, source: string): Script {
  const fail = (where: string, problem: string): never => {
    throw new ScriptError(`invalid script ${source}: ${where} ${problem}`);
  };
  const script = expectObject(value, "the top level", fail);
  checkKeys(
    script,
    ["name", "description", "steps", "repeatLastStep", "demoRepository", "sequential"],
    "the top level",
    fail,
  );
  const name = expectText(script.name, '"name"', fail);
  const description = expectText(script.description, '"description"', fail);
  if (script.repeatLastStep !== undefined && typeof script.repeatLastStep !== "boolean") {
    fail('"repeatLastStep"', `must be true or false, got ${describeJson(script.repeatLastStep)}.`);
  }
  if (script.demoRepository !== undefined && typeof script.demoRepository !== "boolean") {
    fail('"demoRepository"', `must be true or false, got ${describeJson(script.demoRepository)}.`);
  }
  if (script.sequential !== undefined && typeof script.sequential !== "boolean") {
    fail('"sequential"', `must be true or false, got ${describeJson(script.sequential)}.`);
  }
  if (!Array.isArray(script.steps) || script.steps.length === 0) {
    fail('"steps"', "must be a non-empty array of steps.");
  }
  const steps = (script.steps as unknown[]).map((step, i) => parseStep(step, `steps[${i}]`, fail));
  return {
    name,
    description,
    steps,
    ...(script.repeatLastStep === true ? { repeatLastStep: true } : {}),
    ...(script.demoRepository === true ? { demoRepository: true } : {}),
    ...(script.sequential === true ? { sequential: true } : {}),
  };
}

type Fail = (where: string, problem: string) => never;

function parseStep(value: unknown, where: string, fail: Fail): ScriptStep {
  const step = expectObject(value, where, fail);
  checkKeys(step, ["expect", "reply"], where, fail);
  const result: ScriptStep = { reply: parseReply(step.reply, `${where}.reply`, fail) };
  if (step.expect !== undefined) result.expect = parseExpect(step.expect, `${where}.expect`, fail);
  return result;
}

function parseExpect(value: unknown, where: string, fail: Fail): NonNullable<ScriptStep["expect"]> {
  const expect = expectObject(value, where, fail);
  checkKeys(expect, ["lastMessageRole", "toolResultFor", "lastMessageIncludes"], where, fail);
  const result: NonNullable<ScriptStep["expect"]> = {};
  if (expect.lastMessageRole !== undefined) {
    if (expect.lastMessageRole !== "user" && expect.lastMessageRole !== "tool") {
      fail(
        `${where}.lastMessageRole`,
        `must be "user" or "tool", got ${describeJson(expect.lastMessageRole)}.`,
      );
    }
    result.lastMessageRole = expect.lastMessageRole as "user" | "tool";
  }
  if (expect.toolResultFor !== undefined) {
    result.toolResultFor = expectText(expect.toolResultFor, `${where}.toolResultFor`, fail);
  }
  if (expect.lastMessageIncludes !== undefined) {
    result.lastMessageIncludes = expectText(
      expect.lastMessageIncludes,
      `${where}.lastMessageIncludes`,
      fail,
    );
  }
  return result;
}

function parseReply(value: unknown, where: string, fail: Fail): ScriptStep["reply"] {
  const reply = expectObject(value, where, fail);
  checkKeys(reply, ["content", "toolCalls"], where, fail);
  const result: ScriptStep["reply"] = {};
  if (reply.content !== undefined)
    result.content = expectText(reply.content, `${where}.content`, fail);
  if (reply.toolCalls !== undefined) {
    if (!Array.isArray(reply.toolCalls) || reply.toolCalls.length === 0) {
      fail(`${where}.toolCalls`, "must be a non-empty array (or left out).");
    }
    result.toolCalls = (reply.toolCalls as unknown[]).map((call, i) =>
      parseToolCall(call, `${where}.toolCalls[${i}]`, fail),
    );
  }
  if (result.content === undefined && result.toolCalls === undefined) {
    fail(where, 'needs "content", "toolCalls" or both.');
  }
  return result;
}

function parseToolCall(value: unknown, where: string, fail: Fail): ScriptedToolCall {
  const call = expectObject(value, where, fail);
  checkKeys(call, ["id", "name", "arguments"], where, fail);
  const id = expectText(call.id, `${where}.id`, fail);
  const name = expectText(call.name, `${where}.name`, fail);
  // Function-calling arguments are always a JSON object; as a string they stay byte-exact.
  if (typeof call.arguments === "string") {
    if (!isJsonObjectText(call.arguments)) {
      fail(
        `${where}.arguments`,
        "is not the JSON text of an object. Write it as a JSON object instead.",
      );
    }
    return { id, name, arguments: call.arguments };
  }
  if (
    typeof call.arguments === "object" &&
    call.arguments !== null &&
    !Array.isArray(call.arguments)
  ) {
    return { id, name, arguments: JSON.stringify(call.arguments) };
  }
  return fail(
    `${where}.arguments`,
    `must be a JSON object or its JSON text, got ${describeJson(call.arguments)}.`,
  );
}

function isJsonObjectText(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

function expectObject(value: unknown, where: string, fail: Fail): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    fail(where, `must be an object, got ${describeJson(value)}.`);
  }
  return value as Record<string, unknown>;
}

function expectText(value: unknown, where: string, fail: Fail): string {
  if (typeof value !== "string" || value.length === 0) {
    fail(where, `must be a non-empty string, got ${describeJson(value)}.`);
  }
  return value as string;
}

// Unknown keys are refused so a typo ("toolcalls") fails loudly instead of being ignored.
function checkKeys(
  object: Record<string, unknown>,
  allowed: string[],
  where: string,
  fail: Fail,
): void {
  for (const key of Object.keys(object)) {
    if (!allowed.includes(key)) {
      fail(where, `has an unknown key "${key}" (allowed: ${allowed.join(", ")}).`);
    }
  }
}

function describeJson(value: unknown): string {
  if (value === undefined) return "nothing";
  if (Array.isArray(value)) return "an array";
  if (value === null) return "null";
  return typeof value === "object" ? "an object" : `${typeof value} ${JSON.stringify(value)}`;
}

// ---------------------------------------------------------------------------
// Step selection

export type StepSelection =
  { ok: true; index: number; reply: ScriptStep["reply"] } | { ok: false; message: string };

/**
 * Picks the step for a request. Stateless on purpose: the step index is the number
 * of assistant messages already in the conversation, so the same request always gets
 * the same answer and a retried request never skips a step. A sequential script passes
 * `answered`, the number of steps replied so far, instead.
 */
export function selectStep(
  script: Script,
  request: ChatRequestBody,
  answered?: number,
): StepSelection {
  const messages = request.messages;
  const asked = answered ?? messages.filter((message) => message.role === "assistant").length;
  const missing = script.demoRepository ? missingDemoFile(messages) : undefined;
  if (missing !== undefined) {
    return { ok: true, index: asked, reply: { content: notTheDemoRepository(missing) } };
  }
  const last = script.steps.length - 1;
  const index = asked > last && script.repeatLastStep === true ? last : asked;
  const step = script.steps[index];
  if (step === undefined) {
    return offScript(
      `script "${script.name}" has ${script.steps.length} steps (0-${last}), but ${answered === undefined ? `the request holds ${asked} assistant messages` : `${asked} steps were replied already`}, so it asks for step ${asked}. The scripted demo is over: start a new conversation.`,
    );
  }
  const where = `script "${script.name}", step ${index}`;
  const mismatch = checkExpect(step, messages);
  if (mismatch !== undefined) return offScript(`${where} expected ${mismatch}`);
  const undeclared = firstUndeclaredTool(step, request);
  if (undeclared !== undefined) return offScript(`${where} ${undeclared}`);
  return { ok: true, index, reply: renderReply(step.reply, messages) };
}

/** The first line of a trailing tool result that says a file does not exist, if any. */
function missingDemoFile(messages: WireMessage[]): string | undefined {
  for (let i = messages.length - 1; i >= 0 && messages[i]?.role === "tool"; i--) {
    const text = messageText(messages[i]);
    if (text.includes("file_not_found")) return truncate(text.split("\n")[0]!.trim(), 200);
  }
  return undefined;
}

/** The demo's last word when it runs on a folder that is not the demo repository. */
export function notTheDemoRepository(toolResult: string): string {
  return (
    "(Scripted demo) This scripted demo only fits the tutorial's demo repository (shared/demo-repo), " +
    `and this workspace is not it: ${toolResult} ` +
    "The demo stops here and has changed nothing. To work on this folder, configure a model: " +
    "OPENAI_API_KEY, or OPENAI_BASE_URL and AGENT_MODEL."
  );
}

function offScript(detail: string): StepSelection {
  return { ok: false, message: `off script: ${detail}` };
}

/** Returns what was expected and what arrived, or undefined when the request fits the step. */
function checkExpect(step: ScriptStep, messages: WireMessage[]): string | undefined {
  const expect = step.expect;
  if (expect === undefined) return undefined;
  const lastMessage = messages.at(-1);
  const arrived = `but the last message is ${describeMessage(lastMessage)}.`;
  if (expect.lastMessageRole !== undefined && lastMessage?.role !== expect.lastMessageRole) {
    return `the last message to be a ${expect.lastMessageRole} message, ${arrived}`;
  }
  if (expect.toolResultFor !== undefined) {
    const results = trailingToolResultIds(messages);
    if (!results.includes(expect.toolResultFor)) {
      const got =
        results.length > 0
          ? `but the tool results after the last assistant message are for ${results.map((id) => `"${id}"`).join(", ")}.`
          : arrived;
      return `a tool result for call "${expect.toolResultFor}", ${got}`;
    }
  }
  if (
    expect.lastMessageIncludes !== undefined &&
    !messageText(lastMessage).includes(expect.lastMessageIncludes)
  ) {
    return `the last message to include ${JSON.stringify(expect.lastMessageIncludes)}, ${arrived}`;
  }
  return undefined;
}

// A real model can only call tools the request offers; a script that does otherwise
// points at a wiring mistake in the caller, so say so instead of replaying it.
function firstUndeclaredTool(step: ScriptStep, request: ChatRequestBody): string | undefined {
  const declared = (request.tools ?? []).map((tool) => tool.function?.name);
  for (const call of step.reply.toolCalls ?? []) {
    if (!declared.includes(call.name)) {
      const list =
        declared.length > 0 ? `declared: ${declared.join(", ")}` : "the request has no tools";
      return `calls the tool "${call.name}", but the request does not declare it (${list}). Pass a tool named "${call.name}" in "tools".`;
    }
  }
  return undefined;
}

function trailingToolResultIds(messages: WireMessage[]): string[] {
  const ids: string[] = [];
  for (let i = messages.length - 1; i >= 0 && messages[i]?.role === "tool"; i--) {
    ids.unshift(messages[i]?.tool_call_id ?? "(no tool_call_id)");
  }
  return ids;
}

function renderReply(reply: ScriptStep["reply"], messages: WireMessage[]): ScriptStep["reply"] {
  if (reply.content === undefined) return reply;
  const lastUser = messages.findLast((message) => message.role === "user");
  const question = truncate(messageText(lastUser).trim(), 500);
  return { ...reply, content: reply.content.replaceAll(LAST_USER_MESSAGE_PLACEHOLDER, question) };
}

/** The text of a message, whether `content` is a string or an array of parts. */
export function messageText(message: WireMessage | undefined): string {
  const content = message?.content;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((part) => part.text ?? "").join("");
  return "";
}

function describeMessage(message: WireMessage | undefined): string {
  if (message === undefined) return "missing (no messages)";
  if (message.role === "tool") return `a tool result for call "${message.tool_call_id ?? "?"}"`;
  const text = messageText(message);
  const calls = (message.tool_calls ?? []).map((call) => call.function.name);
  const shown = text.length > 0 ? ` ${JSON.stringify(truncate(text, 80))}` : "";
  const withCalls = calls.length > 0 ? ` calling ${calls.join(", ")}` : "";
  return `a ${message.role} message${shown}${withCalls}`;
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}
