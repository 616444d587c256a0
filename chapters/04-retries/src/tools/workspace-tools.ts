import type { AnyTool } from "./define-tool.ts";
import { editFileTool } from "./edit-file.ts";
import { listFilesTool } from "./list-files.ts";
import { readFileTool } from "./read-file.ts";

/** The tools of the first agent: look around, read, and change one piece of text. */
export const workspaceTools: AnyTool[] = [listFilesTool, readFileTool, editFileTool];
