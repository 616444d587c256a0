import type { AnyTool } from "./define-tool.ts";
import { listFilesTool } from "./list-files.ts";
import { readFileTool } from "./read-file.ts";
import { searchTextTool } from "./search-text.ts";

/** The tools of this chapter: the agent can look, not yet touch. */
export const workspaceTools: AnyTool[] = [listFilesTool, readFileTool, searchTextTool];
