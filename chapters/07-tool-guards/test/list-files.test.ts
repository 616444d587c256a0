import { mkdir, rm, symlink } from "node:fs/promises";
import { join } from "node:path";
import { makeTempDir, writeTree } from "@build-agent/shared/test-helpers";
import { describe, expect, it } from "vitest";
import { LIST_LIMITS } from "../src/tools/list-files.ts";
import { runToolCall } from "../src/tools/run-tool-call.ts";
import { workspaceTools } from "../src/tools/workspace-tools.ts";
import { useTempWorkspace } from "./tool-test-workspace.ts";

const workspace = useTempWorkspace();

function list(args: string | Record<string, unknown> = "{}") {
  const text = typeof args === "string" ? args : JSON.stringify(args);
  const call = { id: "l1", function: { name: "list_files", arguments: text } };
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
      content: "3 file(s) in the workspace:\nREADME.md\nsrc/cart.mjs\nsrc/lib/format.mjs",
    });
  });

  it("lists one folder when given a path, with paths still from the root", async () => {
    await writeTree(workspace.root(), { "README.md": "", "src/a.js": "", "src/lib/b.js": "" });
    expect((await list({ path: "src/" })).content).toBe(
      "2 file(s) under src/:\nsrc/a.js\nsrc/lib/b.js",
    );
    expect((await list({ path: "." })).content).toMatch(/^3 file\(s\) in the workspace:/);
  });

  it("says so when there is nothing, and takes empty arguments as {}", async () => {
    expect((await list("")).content).toBe("No files found in the workspace.");
  });

  it(`shows at most ${LIST_LIMITS.maxFiles} paths and says how to narrow`, async () => {
    const files = Object.fromEntries(
      Array.from({ length: 250 }, (_, i) => [`gen/f${String(i).padStart(3, "0")}.txt`, ""]),
    );
    await writeTree(workspace.root(), files);
    const lines = (await list()).content.split("\n");
    expect(lines[0]).toBe("250 file(s) in the workspace:");
    expect(lines).toHaveLength(1 + 200 + 1);
    expect(lines[200]).toBe("gen/f199.txt");
    expect(lines.at(-1)).toBe("... 50 more files not shown; narrow with path");
  });

  it("answers a file, a missing folder and an escape with a code and a next step", async () => {
    await writeTree(workspace.root(), { "src/a.js": "" });
    expect((await list({ path: "src/a.js" })).content).toBe(
      'Error [not_a_directory]: src/a.js is a file, not a folder.\nHint: Use read_file with path="src/a.js" to read it.',
    );
    expect((await list({ path: "lib" })).content).toBe(
      "Error [file_not_found]: lib does not exist.\nHint: Call list_files without a path to see the whole workspace.",
    );
    expect((await list({ path: "../" })).code).toBe("path_escape");
  });

  it("refuses a folder link leading outside, and lists none of its files", async () => {
    const outside = await makeTempDir("ch07-list-outside-");
    await writeTree(outside, { id_rsa: "key\n" });
    try {
      await symlink(outside, join(workspace.root(), "home"));
      expect((await list({ path: "home" })).code).toBe("symlink");
      // Walking the whole workspace does not follow the link either.
      expect((await list()).content).toBe("No files found in the workspace.");
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });
});
