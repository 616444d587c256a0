import { applyPatchTool } from "../tools/apply-patch-tool.ts";
import type { AnyTool } from "../tools/define-tool.ts";
import { noteTool } from "../tools/note-tool.ts";
import { workspaceTools } from "../tools/workspace-tools.ts";

/** Everything the agent can do: look (03, 04), patch (09), take notes (12). */
export function agentTools(): AnyTool[] {
  return [...workspaceTools, applyPatchTool, noteTool];
}
