import { countMessageTokens, countToolTokens } from "../context/token-counter.ts";
import { visible } from "../terminal/visible-text.ts";
import { toOpenAITool, type AnyTool } from "../tools/define-tool.ts";
import { buildSystemPrompt, type PromptOptions } from "./system-prompt.ts";

export interface PrintPromptOptions extends PromptOptions {
  /** The tools a run offers the model: their definitions go with every request too. */
  tools?: readonly AnyTool[];
}

/**
 * `--print-prompt`: shows exactly what the model is told before any task, and
 * what that costs on every single request of a run: the system prompt, plus the
 * definitions of the tools, which are sent beside it every time.
 */
export async function printPrompt(
  workspace: string,
  options: PrintPromptOptions = {},
  out: { write(text: string): unknown } = process.stdout,
): Promise<void> {
  const prompt = await buildSystemPrompt(workspace, options);
  const promptTokens = countMessageTokens({ role: "system", content: prompt });
  const tools = (options.tools ?? []).map(toOpenAITool);
  const toolTokens = countToolTokens(tools);
  out.write(visible(prompt, { lines: true })); // AGENTS.md and skills are the workspace's text
  out.write(`\n-- system prompt: ${promptTokens} tokens (o200k_base) --\n`);
  if (tools.length > 0) {
    const each = tools.map((tool) => `${tool.function.name} ${countToolTokens([tool])}`);
    out.write(`-- tools: ${toolTokens} tokens (${each.join(", ")}) --\n`);
  }
  out.write(`-- ${promptTokens + toolTokens} tokens in all, sent with every model call --\n`);
}
