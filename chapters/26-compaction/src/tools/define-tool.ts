import type { ChatCompletionFunctionTool } from "openai/resources/chat/completions";
import { z } from "zod";
import type { RunLedger } from "../ledger/run-ledger.ts";
import type { ApplyPatchResult, PatchPlan, PlannedFile } from "../patch/apply-patch.ts";
import type { NoteStore } from "../notes/note-store.ts";
import type { PlanStep } from "../plan/plan.ts";

/** What a tool may do to the world. The loop (chapter 20) asks for approval based on it. */
export type ToolEffect = "read" | "write" | "execute";

/** What the harness hands every tool call: where the workspace is, and how to stop. */
export interface ToolContext {
  /** The workspace root; every path a tool accepts is relative to it. */
  cwd: string;
  signal: AbortSignal;
  /**
   * The run's ledger, owned by the harness: read_file records what the agent
   * saw, apply_patch takes its preconditions from it and records its writes.
   * Its run id names the run's backup folder (.agent/backups/<runId>).
   */
  ledger?: RunLedger;
  /** Where "Patch applied" / "Patch failed" notes go, and the note tool's notebook. */
  notes?: NoteStore;
  /** Sees apply_patch's staged plan before anything is written; throwing refuses the patch. */
  reviewPatch?: (plan: PatchPlan) => Promise<void>;
}

/** What a tool call came to: the model reads `content`, the harness `ok` and `code`. */
export interface ToolResult {
  ok: boolean;
  content: string;
  /** A stable error code when `ok` is false, e.g. `file_not_found`. */
  code?: string;
  /** apply_patch's result as data, so the terminal can show what was written. */
  patch?: ApplyPatchResult;
  /**
   * The staged files' real text before and after: the terminal diffs these, not
   * the patch's own lines, so a loosely matched hunk shows what was written.
   */
  files?: PlannedFile[];
  /** update_plan's accepted plan, so the terminal can show it. */
  plan?: PlanStep[];
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
  const { $schema: _dialect, ...parameters } = z.toJSONSchema(tool.schema, {
    // "input" describes what the model may send: fields with defaults stay optional.
    io: "input",
    // zod writes a safe integer's bounds into every .int(). They tell the model nothing, and the
    // schema is sent with every request (chapter 17 counts what it costs).
    override: ({ jsonSchema }) => {
      if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
      if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
      // "Not empty" is checked when the call arrives, with an error the model can act on.
      if (jsonSchema.minLength === 1) delete jsonSchema.minLength;
    },
  });
  return {
    type: "function",
    function: { name: tool.name, description: tool.description, parameters },
  };
}
