import { readPatchToolOutput } from "./apply-patch-tool.ts";
import type { ToolCallResult } from "./run-tool-call.ts";

/** What a tool call came to, as the ledger records it. */
export interface ToolOutcome {
  outcome: "ok" | "error";
  /** The stable error code (`file_changed`, `not_read`, ...) when the result names one. */
  code?: string;
}

/**
 * Whether a tool call worked. A result's `ok` only says the tool returned:
 * apply_patch returns its failures instead of throwing them, because the
 * model needs the whole result (which files were written, remaining_patch).
 * So a patch that did not fully apply is judged an error here, with its first
 * failure's code; any other failed call carries its code as "Error [code]: ...".
 */
export function judgeOutcome(result: ToolCallResult): ToolOutcome {
  if (!result.ok) {
    return { outcome: "error", code: /^Error \[([\w-]+)\]/.exec(result.content)?.[1] };
  }
  const patch = readPatchToolOutput(result.content);
  if (patch === undefined || patch.success) return { outcome: "ok" };
  return { outcome: "error", code: patch.failures[0]?.code };
}
