import { countMessageTokens } from "../context/token-counter.ts";
import { buildSystemPrompt } from "./system-prompt.ts";
import type { EnvironmentOptions } from "./environment.ts";

/**
 * `--print-prompt`: shows exactly what the model is told before any task, and
 * what that costs on every single request of a run.
 */
export async function printPrompt(
  workspace: string,
  options: EnvironmentOptions = {},
  out: { write(text: string): unknown } = process.stdout,
): Promise<void> {
  const prompt = await buildSystemPrompt(workspace, options);
  const tokens = countMessageTokens({ role: "system", content: prompt });
  out.write(prompt);
  out.write(`\n-- system prompt: ${tokens} tokens (o200k_base), sent with every model call --\n`);
}
