import { applyPatchTool } from "../tools/apply-patch-tool.ts";
import type { AnyTool } from "../tools/define-tool.ts";
import { noteTool } from "../tools/note-tool.ts";
import { runCommandTool, type CommandSettings } from "../tools/run-command-tool.ts";
import { workspaceTools } from "../tools/workspace-tools.ts";
import { requireApproval, type Approver } from "./approval.ts";

/**
 * Everything the agent can do: look (03, 04), patch behind approval (09, 16), take notes (12),
 * and run commands (18) when the run was given command settings.
 */
export function agentTools(approver: Approver, commands?: CommandSettings): AnyTool[] {
  const run = commands === undefined ? [] : [runCommandTool(commands)];
  return [...workspaceTools, requireApproval(applyPatchTool, approver), ...run, noteTool];
}
