import { copyDemoRepo, runDemoCheck } from "@build-agent/shared/demo-repo";
import { SCRIPTED_DEMO_LABEL } from "@build-agent/shared/offline-model";
import { banner, color } from "@build-agent/shared/terminal";
import { startConversation } from "../context/conversation.ts";
import { createModelClient } from "../model/model-client.ts";
import type { ModelEndpoint } from "../model/model-endpoint.ts";
import { buildSystemPrompt } from "../prompts/system-prompt.ts";
import { findSandbox } from "../commands/sandbox.ts";
import { discoverSkills } from "../skills/discover-skills.ts";
import { DEFAULT_COMMAND_TIMEOUT_MS } from "../tools/run-command-tool.ts";
import { DEFAULT_BUDGETS } from "./budgets.ts";
import type { CtrlC } from "./ctrl-c.ts";
import { runOneShot } from "./one-shot.ts";
import type { TerminalUi } from "./terminal-ui.ts";

export const DEMO_TASK = "The total with a coupon is wrong. Find the bug and fix it.";
const DEMO_CHECK = "node check.mjs";

/**
 * `pnpm start` with no model configured: the whole agent on a scratch copy of
 * the demo repository, driven by the offline model's fix-bug-skilled script. The
 * model's turns are scripted, everything else is real: the SDK, the loop,
 * the hash-guarded patch, the commands, the plan, the ledger. The model runs the demo's check itself
 * (allowed without asking, as --allow-command would), and the harness runs it once more after.
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
  ui.line(color.dim(`allowed without asking: ${DEMO_CHECK} (as --allow-command "${DEMO_CHECK}")`));
  ui.line(color.bold(`task: ${DEMO_TASK}`));
  // The demo repository's skills only: the demo is the same on every machine, whatever its home holds.
  const { skills, problems } = await discoverSkills(workspace);
  for (const problem of problems) ui.notice(problem);

  const { code } = await runOneShot({
    workspace,
    task: DEMO_TASK,
    conversation: startConversation(await buildSystemPrompt(workspace, { skills })),
    client: createModelClient(endpoint),
    model: endpoint.model,
    maxRetries: endpoint.maxRetries,
    contextTokens: options.contextTokens,
    budgets: DEFAULT_BUDGETS,
    yes: false,
    commands: {
      policy: { mode: "ask", allowed: [DEMO_CHECK] },
      sandbox: await findSandbox(),
      timeoutMs: DEFAULT_COMMAND_TIMEOUT_MS,
      secrets: [],
    },
    skills,
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
