import { applyPatchTool } from "../tools/apply-patch-tool.ts";
import type { Skill } from "../skills/discover-skills.ts";
import type { AnyTool } from "../tools/define-tool.ts";
import { loadSkillTool } from "../tools/load-skill-tool.ts";
import { noteTool } from "../tools/note-tool.ts";
import { runCommandTool, type CommandSettings } from "../tools/run-command-tool.ts";
import { updatePlanTool } from "../tools/update-plan-tool.ts";
import { workspaceTools } from "../tools/workspace-tools.ts";
import { requireApproval, type Approver } from "./approval.ts";

/**
 * Everything the agent can do: look (03, 04), patch behind approval (09, 16), take notes (12),
 * run commands (18) when the run was given command settings, keep a plan (20), and load skills (21).
 * load_skill only when there are skills: a tool that can load nothing costs tokens for nothing.
 */
export function agentTools(
  approver: Approver,
  commands?: CommandSettings,
  skills: readonly Skill[] = [],
): AnyTool[] {
  const run = commands === undefined ? [] : [runCommandTool(commands)];
  const skill = skills.length === 0 ? [] : [loadSkillTool(skills)];
  return [
    ...workspaceTools,
    requireApproval(applyPatchTool, approver),
    ...run,
    noteTool,
    updatePlanTool,
    ...skill,
  ];
}
