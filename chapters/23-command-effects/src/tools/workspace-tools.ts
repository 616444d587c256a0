import type { AnyTool } from "./define-tool.ts";
import { listFilesTool } from "./list-files.ts";
import { readFileTool } from "./read-file.ts";
import { searchTextTool } from "./search-text.ts";

/** The tools that look; main.ts adds the one that changes files beside them. */
export const workspaceTools: AnyTool[] = [listFilesTool, readFileTool, searchTextTool];
