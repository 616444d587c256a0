import { color } from "@build-agent/shared/terminal";
import { visible } from "../terminal/visible-text.ts";
import { toolCallLine } from "../tools/tool-call-line.ts";
import type { ToolCallRequest, ToolCallResult } from "../tools/run-tool-call.ts";
import type { LoopEvents } from "./agent-loop.ts";

export interface Output {
  write(text: string): unknown;
}

/**
 * What a person sees while the agent works: the model's text as it streams,
 * and one line per tool call with its status. Notices (retries, dropped
 * context) go to stderr, so stdout holds only the agent's own story.
 */
export class TerminalUi {
  private lineOpen = false;

  constructor(
    private readonly out: Output = process.stdout,
    private readonly err: Output = process.stderr,
  ) {}

  events(): LoopEvents {
    return {
      onText: (text) => this.text(text),
      onToolCall: (call, result) => this.toolCall(call, result),
      onNotice: (line) => this.notice(line),
    };
  }

  // Everything the model, the workspace or a command says is written out: see visible().
  text(text: string): void {
    this.out.write(visible(text, { lines: true }));
    this.lineOpen = !text.endsWith("\n");
  }

  toolCall(call: ToolCallRequest, result: ToolCallResult): void {
    this.endLine();
    this.out.write(describeToolCall(call, result) + "\n");
  }

  notice(line: string): void {
    this.endLine();
    this.err.write(color.dim(visible(line, { lines: true })) + "\n");
  }

  /** Plain lines for stdout (summary, demo output). */
  line(text: string): void {
    this.endLine();
    this.out.write(text + "\n");
  }

  endLine(): void {
    if (this.lineOpen) this.out.write("\n");
    this.lineOpen = false;
  }
}

/**
 * apply_patch's line names no arguments and says what happened: its own
 * summary, green only when every file was written (see the tool runner), or
 * why it was refused. Other tools get the usual line.
 */
function describeToolCall(call: ToolCallRequest, result: ToolCallResult): string {
  if (call.function.name !== "apply_patch") return toolCallLine(call, result);
  const label = "→ apply_patch";
  const first = result.content.split("\n")[0] ?? "";
  // A patch result's first line is its summary; anything else is an error thrown before it.
  const status = result.patch ? first : `failed: ${first}`;
  return `${color.cyan(label)}  ${(result.ok ? color.green : color.red)(visible(status))}`;
}
