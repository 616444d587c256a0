import { copyDemoRepo, runDemoCheck } from "@build-agent/shared/demo-repo";
import { SCRIPTED_DEMO_LABEL } from "@build-agent/shared/offline-model";
import { banner, color } from "@build-agent/shared/terminal";
import { startConversation } from "../context/conversation.ts";
import { createModelClient } from "../model/model-client.ts";
import type { ModelEndpoint } from "../model/model-endpoint.ts";
import { buildSystemPrompt } from "../prompts/system-prompt.ts";
import { DEFAULT_BUDGETS } from "./budgets.ts";
import type { CtrlC } from "./ctrl-c.ts";
import { runOneShot } from "./one-shot.ts";
import type { TerminalUi } from "./terminal-ui.ts";

export const DEMO_TASK = "The total with a coupon is wrong. Find the bug and fix it.";

/**
 * `pnpm start` with no model configured: the whole agent on a scratch copy of
 * the demo repository, driven by the offline model's fix-bug script. The
 * model's turns are scripted, everything else is real: the SDK, the loop,
 * the hash-guarded patch, the ledger. The demo's own check proves the fix.
 */
export async function runOfflineDemo(options: {
  endpoint: ModelEndpoint;
  contextTokens: number;
  ui: TerminalUi;
  ctrlC: CtrlC;
}): Promise<number> {
  const { endpoint, ui } = options;
  ui.line(banner(SCRIPTED_DEMO_LABEL));
  const workspace = await copyDemoRepo();
  ui.line(color.dim(`workspace: ${workspace} (scratch copy of the demo repository)`));
  const before = await runDemoCheck(workspace);
  ui.line(color.dim(`before: node check.mjs → ${before.ok ? "passes" : "fails"}`));
  ui.line(color.bold(`task: ${DEMO_TASK}`));

  const { code } = await runOneShot({
    workspace,
    task: DEMO_TASK,
    conversation: startConversation(await buildSystemPrompt(workspace)),
    client: createModelClient(endpoint),
    model: endpoint.model,
    maxRetries: endpoint.maxRetries,
    contextTokens: options.contextTokens,
    budgets: DEFAULT_BUDGETS,
    yes: false,
    ui,
    ctrlC: options.ctrlC,
  });
  if (code !== 0) return code;

  const after = await runDemoCheck(workspace);
  const result = after.output.trim().split("\n").at(-1) ?? "";
  ui.line(
    after.ok
      ? color.green(`check: node check.mjs → ${result}`)
      : color.red(`check: node check.mjs failed:\n${after.output.trim()}`),
  );
  ui.line(color.dim(`look for yourself: cd ${workspace} (the run's ledger is in .agent/runs/)`));
  ui.line(banner(`end of ${SCRIPTED_DEMO_LABEL}`));
  return after.ok ? 0 : 1;
}
