import { color } from "@build-agent/shared/terminal";
import { visible } from "../terminal/visible-text.ts";
import type { ToolCallRequest, ToolCallResult } from "./run-tool-call.ts";

/**
 * One line per tool call, so the person watching sees what the model did:
 *   → read_file src/cart.mjs  ok
 *   → read_file nope.ts  failed: Error [file_not_found]: nope.ts does not exist.
 */
export function toolCallLine(call: ToolCallRequest, result: ToolCallResult): string {
  const args = describeArguments(call.function.arguments);
  const head = visible(`→ ${call.function.name}${args ? ` ${args}` : ""}`);
  if (result.ok) return `${color.cyan(head)}  ${color.green("ok")}`;
  const reason = result.content.split("\n")[0] ?? "";
  return `${color.cyan(head)}  ${color.red(`failed: ${visible(reason)}`)}`;
}

/** The arguments in short: a path as is, everything else as key=value. */
function describeArguments(text: string): string {
  let args: unknown;
  try {
    args = JSON.parse(text === "" ? "{}" : text);
  } catch {
    return shorten(text);
  }
  if (typeof args !== "object" || args === null) return shorten(text);
  const parts = Object.entries(args).map(([key, value]) =>
    key === "path" && typeof value === "string" ? value : `${key}=${JSON.stringify(value)}`,
  );
  return shorten(parts.join(" "));
}

function shorten(text: string, max = 80): string {
  const oneLine = text.replaceAll("\n", "\\n");
  return oneLine.length <= max ? oneLine : `${oneLine.slice(0, max - 1)}…`;
}
