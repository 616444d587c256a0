import { color } from "@build-agent/shared/terminal";
import { visible } from "../terminal/visible-text.ts";
import type { ToolCallRequest, ToolCallResult } from "./run-tool-call.ts";

/**
 * One line per tool call, so the person watching sees what the model did:
 *   → read_file src/cart.mjs  ok
 *   → read_file nope.ts  failed: Error [file_not_found]: nope.ts does not exist.
 */
export function toolCallLine(call: ToolCallRequest, result: ToolCallResult): string {
  const head = visible(`→ ${call.function.name} ${pathOf(call.function.arguments)}`.trimEnd());
  if (result.ok) return `${color.cyan(head)}  ${color.green("ok")}`;
  const reason = result.content.split("\n")[0] ?? "";
  return `${color.cyan(head)}  ${color.red(`failed: ${visible(reason)}`)}`;
}

/** The path the call is about, if its arguments name one. */
function pathOf(text: string): string {
  try {
    const args: unknown = JSON.parse(text);
    if (typeof args === "object" && args !== null && "path" in args) return String(args.path);
  } catch {
    // Not JSON: the tool's answer says so; the line shows just the name.
  }
  return "";
}
