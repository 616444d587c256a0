import { redactSecrets } from "../commands/redact-secrets.ts";
import type { RunLedger } from "../ledger/run-ledger.ts";
import type { NoteStore } from "../notes/note-store.ts";
import type { AnyTool } from "../tools/define-tool.ts";
import { runToolCall, type ToolCallRequest, type ToolCallResult } from "../tools/run-tool-call.ts";

export interface ToolRunnerOptions {
  tools: readonly AnyTool[];
  cwd: string;
  ledger: RunLedger;
  notes: NoteStore;
  /** The API key: taken out of every result, as out of a command's output (redact-secrets.ts). */
  secrets: readonly string[];
}

/**
 * Runs one tool call with the harness around it: the tools get the run's
 * ledger (reads and writes go in, apply_patch takes its preconditions out)
 * and notebook, and every call is logged with its outcome, which the result's
 * `ok` then states honestly. A call the user stopped is logged too, before the
 * abort travels on.
 */
export function createToolRunner(options: ToolRunnerOptions) {
  const { ledger, notes, cwd } = options;
  return async (call: ToolCallRequest, signal: AbortSignal): Promise<ToolCallResult> => {
    let result: ToolCallResult;
    try {
      result = await runToolCall(options.tools, call, { cwd, signal, ledger, notes });
    } catch (error) {
      await ledger.recordToolCall({
        tool: call.function.name,
        callId: call.id,
        outcome: "error",
        code: "aborted",
      });
      throw error;
    }
    // A tool that returned did not necessarily work: a patch that failed is
    // returned, not thrown, and its result's ok and code say so.
    await ledger.recordToolCall({
      tool: call.function.name,
      callId: call.id,
      outcome: result.ok ? "ok" : "error",
      code: result.code,
    });
    // read_file with AGENT_READ_SECRETS=1 can show a .env; no tool result carries the key on.
    return { ...result, content: redactSecrets(result.content, options.secrets) };
  };
}
