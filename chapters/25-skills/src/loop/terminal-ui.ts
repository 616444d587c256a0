import { color } from "@build-agent/shared/terminal";
import type { PlanStep } from "../plan/plan.ts";
import { visible } from "../terminal/visible-text.ts";
import { toolCallLine } from "../tools/tool-call-line.ts";
import type { ToolCallRequest, ToolCallResult } from "../tools/run-tool-call.ts";
import type { LoopEvents } from "./agent-loop.ts";
import { renderPatchDiff } from "./patch-diff.ts";

export interface Output {
  write(text: string): unknown;
}

/**
 * What a person sees while the agent works: the model's text as it streams,
 * one line per tool call with its status, the diff of every patch that
 * was applied, and the plan each time the model sends one. Notices (retries,
 * dropped context, plan reminders) go to stderr, so stdout holds only the
 * agent's own story.
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
    if (result.plan) {
      this.out.write(planView(result.plan) + "\n");
      return;
    }
    this.out.write(describeToolCall(call, result) + "\n");
    // apply_patch's result carries the staged files' real texts: the diff shows what was written.
    const diff = result.patch && result.files ? renderPatchDiff(result.files, result.patch) : "";
    if (diff !== "") this.out.write(diff + "\n");
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

  /**
   * Runs a question that readline asks on a line of its own. While it waits,
   * the line counts as open, so a notice (Ctrl-C's "stopping…") starts a new one.
   */
  async question<T>(ask: () => Promise<T>): Promise<T> {
    this.endLine();
    // Plain attributes for the question, whatever was printed before it (ESC[0m resets them).
    this.out.write("\x1b[0m");
    this.lineOpen = true;
    try {
      return await ask();
    } finally {
      this.lineOpen = false;
    }
  }

  endLine(): void {
    if (this.lineOpen) this.out.write("\n");
    this.lineOpen = false;
  }
}

/**
 * apply_patch's line names no arguments (the patch is shown as a diff when it
 * applies) and says what happened: its own summary, green only when every file
 * was written (see the tool runner), or why it was refused. Other tools get
 * the usual line.
 */
function describeToolCall(call: ToolCallRequest, result: ToolCallResult): string {
  if (call.function.name !== "apply_patch") return toolCallLine(call, result);
  const label = call.id.startsWith("text-patch-")
    ? "→ apply_patch (patch found in the answer text)"
    : "→ apply_patch";
  const first = result.content.split("\n")[0] ?? "";
  // A patch result's first line is its summary; anything else is an error thrown before it.
  const status = result.patch ? first : `failed: ${first}`;
  return `${color.cyan(label)}  ${(result.ok ? color.green : color.red)(visible(status))}`;
}

const PLAN_MARK = {
  done: color.green("[x]"),
  in_progress: color.bold("[>]"),
  pending: "[ ]",
  blocked: color.red("[!]"),
} as const;

/** The plan update_plan accepted, one line per step under its count: [x] done, [>] doing. */
export function planView(steps: readonly PlanStep[]): string {
  const done = steps.filter((s) => s.status === "done").length;
  return [
    `${color.cyan("→ update_plan")}  ${done} of ${steps.length} done`,
    ...steps.map((s) => `  ${PLAN_MARK[s.status]} ${visible(s.step)}`),
  ].join("\n");
}
