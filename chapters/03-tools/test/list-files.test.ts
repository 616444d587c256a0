import { mkdir } from "node:fs/promises";
import { writeTree } from "@build-agent/shared/test-helpers";
import { describe, expect, it } from "vitest";
import { runToolCall } from "../src/tools/run-tool-call.ts";
import { workspaceTools } from "../src/tools/workspace-tools.ts";
import { useTempWorkspace } from "./tool-test-workspace.ts";

const workspace = useTempWorkspace();

function list(args = "{}") {
  const call = { id: "l1", function: { name: "list_files", arguments: args } };
  return runToolCall(workspaceTools, call, workspace.context());
}

describe("list_files", () => {
  it("lists every file, sorted, with / separators, skipping .git and node_modules", async () => {
    await writeTree(workspace.root(), {
      "README.md": "# demo\n",
      "src/cart.mjs": "",
      "src/lib/format.mjs": "",
      ".git/HEAD": "ref: refs/heads/main\n",
      "node_modules/zod/index.js": "",
      "packages/a/node_modules/x.js": "",
    });
    await mkdir(`${workspace.root()}/empty-folder`);
    expect(await list()).toEqual({
      tool_call_id: "l1",
      ok: true,
      content: "3 file(s):\nREADME.md\nsrc/cart.mjs\nsrc/lib/format.mjs",
    });
  });

  it("says so when there is nothing, and takes empty arguments as {}", async () => {
    expect((await list("")).content).toBe("The workspace has no files.");
  });
});
