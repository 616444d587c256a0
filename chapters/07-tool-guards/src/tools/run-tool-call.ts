import type { z } from "zod";
import type { AnyTool, ToolContext, ToolResult } from "./define-tool.ts";
import { ToolError } from "./tool-error.ts";
import { WorkspacePathError } from "../fs/workspace-path.ts";

/** The part of a model's tool call the harness needs. */
export interface ToolCallRequest {
  id: string;
  function: { name: string; arguments: string };
}

/** A tool result, ready to become a `role: "tool"` message. */
export interface ToolCallResult extends ToolResult {
  tool_call_id: string;
}

/**
 * Runs one tool call. Whatever the model sent, the answer is a tool result it
 * can act on: a bad call is an observation for the model, never a crash of
 * the harness. Only an abort (the user pressed Ctrl-C) propagates.
 */
export async function runToolCall(
  tools: readonly AnyTool[],
  call: ToolCallRequest,
  context: ToolContext,
): Promise<ToolCallResult> {
  const failed = (content: string, code?: string) => ({
    tool_call_id: call.id,
    ok: false,
    content,
    code,
  });
  const name = call.function.name;

  const tool = tools.find((candidate) => candidate.name === name);
  if (!tool) {
    const available = tools.map((candidate) => candidate.name).join(", ");
    return failed(`Error: unknown tool "${name}". Available tools: ${available}.`);
  }

  const parsed = parseArguments(call.function.arguments);
  if (!parsed.ok) {
    return failed(
      `Error: the arguments for ${name} are not valid JSON: ${quote(call.function.arguments)}. ` +
        `Call ${name} again with its arguments as one JSON object.`,
    );
  }

  const validated = tool.schema.safeParse(parsed.value);
  if (!validated.success) {
    return failed(
      `Error: invalid arguments for ${name}:\n${renderIssues(validated.error.issues)}\n` +
        `Call ${name} again with corrected arguments.`,
    );
  }

  try {
    return { tool_call_id: call.id, ...(await tool.execute(validated.data, context)) };
  } catch (error) {
    if (context.signal.aborted) throw error;
    return failed(describeFailure(name, error), errorCode(error));
  }
}

function parseArguments(text: string): { ok: true; value: unknown } | { ok: false } {
  // Models often send "" for a tool without parameters; that means {}.
  if (text.trim() === "") return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** One line per problem: which field, and what was wrong with it. */
function renderIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .map((issue) => {
      const field = issue.path.length > 0 ? issue.path.join(".") : "(arguments)";
      return `- ${field}: ${issue.message}`;
    })
    .join("\n");
}

function errorCode(error: unknown): string | undefined {
  return error instanceof ToolError || error instanceof WorkspacePathError ? error.code : undefined;
}

function describeFailure(name: string, error: unknown): string {
  if (error instanceof ToolError || error instanceof WorkspacePathError) {
    return `Error [${error.code}]: ${error.message}\nHint: ${error.hint}`;
  }
  const message = error instanceof Error ? error.message : String(error);
  return `Error: ${name} failed: ${message}`;
}

function quote(text: string): string {
  const limit = 200;
  return text.length <= limit ? text : `${text.slice(0, limit)}… (${text.length} characters)`;
}
