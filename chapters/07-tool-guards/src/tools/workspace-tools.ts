import type { AnyTool } from "./define-tool.ts";
import { readFileTool } from "./read-file.ts";

/** The tools of this chapter: the agent can read, not yet touch. */
export const workspaceTools: AnyTool[] = [readFileTool];
