import type { ChatCompletionFunctionTool } from "openai/resources/chat/completions";
import { z } from "zod";
import type { ApplyPatchResult } from "../patch/apply-patch.ts";

/** What a tool may do to the world. The loop (chapter 20) asks for approval based on it. */
export type ToolEffect = "read" | "write" | "execute";

/** What the harness hands every tool call: where the workspace is, and how to stop. */
export interface ToolContext {
  /** The workspace root; every path a tool accepts is relative to it. */
  cwd: string;
  signal: AbortSignal;
}

/** What a tool call came to: the model reads `content`, the harness `ok` and `code`. */
export interface ToolResult {
  ok: boolean;
  content: string;
  /** A stable error code when `ok` is false, e.g. `file_not_found`. */
  code?: string;
  /** apply_patch's result as data, so the terminal can show what was written. */
  patch?: ApplyPatchResult;
}

/**
 * A tool is its schema plus a function. The zod schema is the single source
 * of truth: it types `execute`'s arguments and becomes the JSON schema the
 * model sees, so the two can never disagree.
 */
export interface Tool<Schema extends z.ZodObject = z.ZodObject> {
  name: string;
  description: string;
  effect: ToolEffect;
  schema: Schema;
  /** Does the work; a failure the model can act on may be thrown as a ToolError. */
  execute(args: z.output<Schema>, context: ToolContext): Promise<ToolResult>;
}

/** Any tool, whatever its arguments; what registries and loops hold. */
export type AnyTool = Tool<z.ZodObject>;

// The naming rule of the OpenAI function-calling API.
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

export function defineTool<Schema extends z.ZodObject>(tool: Tool<Schema>): Tool<Schema> {
  if (!TOOL_NAME.test(tool.name)) {
    throw new Error(`Tool name "${tool.name}" is invalid: use 1-64 letters, digits, "_" or "-".`);
  }
  return tool;
}

/** The tool as the chat completions API expects it in `tools`. */
export function toOpenAITool(tool: AnyTool): ChatCompletionFunctionTool {
  // "input" describes what the model may send: fields with defaults stay optional.
  const { $schema: _dialect, ...parameters } = z.toJSONSchema(tool.schema, { io: "input" });
  return {
    type: "function",
    function: { name: tool.name, description: tool.description, parameters },
  };
}
