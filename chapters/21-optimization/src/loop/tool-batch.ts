import type { ToolEffect } from "../tools/define-tool.ts";
import type { ToolCallRequest, ToolCallResult } from "../tools/run-tool-call.ts";

/**
 * Runs the tool calls of one assistant message. Reads run in parallel (they
 * cannot interfere), writes one at a time in the order the model asked for
 * them, so a later patch sees the earlier one's result. Every call gets
 * exactly one result, in the model's order: the API rejects a conversation
 * where a tool call has no answer, and a missing answer would leave the model
 * guessing what happened.
 */
export interface ToolBatchOptions {
  /** Runs one call; throws only when aborted (chapter 07's runToolCall). */
  run: (call: ToolCallRequest) => Promise<ToolCallResult>;
  /** The effect of the named tool; undefined for a tool that does not exist. */
  effectOf: (name: string) => ToolEffect | undefined;
  signal: AbortSignal;
  /** Why the signal fired, in words the model reads: "the user pressed Ctrl-C". */
  stopReason: () => string;
}

export async function runToolBatch(
  calls: readonly ToolCallRequest[],
  options: ToolBatchOptions,
): Promise<ToolCallResult[]> {
  const results: ToolCallResult[] = [];
  for (const group of groupCalls(calls, options.effectOf)) {
    results.push(...(await Promise.all(group.map((call) => runOne(call, options)))));
  }
  return results;
}

/** Consecutive reads form one parallel group; every other call is a group of its own. */
export function groupCalls(
  calls: readonly ToolCallRequest[],
  effectOf: (name: string) => ToolEffect | undefined,
): ToolCallRequest[][] {
  const groups: ToolCallRequest[][] = [];
  let reads: ToolCallRequest[] = [];
  for (const call of calls) {
    // An unknown tool only produces an error result, so it is as harmless as a read.
    if ((effectOf(call.function.name) ?? "read") === "read") {
      reads.push(call);
      continue;
    }
    if (reads.length > 0) groups.push(reads);
    reads = [];
    groups.push([call]);
  }
  if (reads.length > 0) groups.push(reads);
  return groups;
}

async function runOne(call: ToolCallRequest, options: ToolBatchOptions): Promise<ToolCallResult> {
  if (options.signal.aborted) return stopped(call, options.stopReason(), "was not started");
  try {
    return await options.run(call);
  } catch (error) {
    if (options.signal.aborted) return stopped(call, options.stopReason(), "was stopped");
    // runToolCall turns every other failure into a result; this is a harness bug, still answered.
    const message = error instanceof Error ? error.message : String(error);
    return {
      tool_call_id: call.id,
      ok: false,
      content: `Error: ${call.function.name} failed inside the harness: ${message}`,
    };
  }
}

/** The result of a call the run did not let finish. Patches are atomic, so no file is half written. */
export function stopped(call: ToolCallRequest, reason: string, what: string): ToolCallResult {
  return {
    tool_call_id: call.id,
    ok: false,
    content: `Error [aborted]: ${call.function.name} ${what} because ${reason}. No file was left half written; read files again before relying on them.`,
  };
}
