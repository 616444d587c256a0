import type { z } from "zod";
import type { AnyTool, ToolContext, ToolResult } from "./define-tool.ts";
import { ToolError } from "./tool-error.ts";

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
 * Runs one tool call. Whatever the model sent, the answer is a tool result it can act on: a bad
 * call is an observation for the model, never a crash of the harness. Only an abort (the user
 * pressed Ctrl-C) propagates.
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
  let args: unknown;
  try {
    // Models often send "" for a tool without parameters; that means {}.
    args = call.function.arguments.trim() === "" ? {} : JSON.parse(call.function.arguments);
  } catch {
    return failed(
      `Error: the arguments for ${name} are not valid JSON. Call ${name} again with its arguments as one JSON object.`,
    );
  }
  const validated = tool.schema.safeParse(args);
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
    if (error instanceof ToolError) {
      return failed(`Error [${error.code}]: ${error.message}\nHint: ${error.hint}`, error.code);
    }
    return failed(
      `Error: ${name} failed: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/** One line per problem: which field, and what was wrong with it. */
function renderIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .map(
      (issue) =>
        `- ${issue.path.length > 0 ? issue.path.join(".") : "(arguments)"}: ${issue.message}`,
    )
    .join("\n");
}
