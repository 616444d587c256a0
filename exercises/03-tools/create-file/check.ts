// Exercise "A create_file tool": a registered write tool that creates a new file (and its
// folders), refuses one that exists with file_exists, and stays inside the workspace.
import assert from "node:assert/strict";
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

interface ToolCallResult {
  ok: boolean;
  content: string;
  code?: string;
}
interface Tool {
  name: string;
  effect: string;
}
interface RunToolCall {
  runToolCall(
    tools: readonly Tool[],
    call: { id: string; function: { name: string; arguments: string } },
    context: { cwd: string; signal: AbortSignal },
  ): Promise<ToolCallResult>;
}

export default async function check(chapterDir: string): Promise<void> {
  const load = async <T>(path: string) =>
    (await import(pathToFileURL(join(chapterDir, path)).href)) as T;
  const { workspaceTools } = await load<{ workspaceTools: Tool[] }>("src/tools/workspace-tools.ts");
  const { runToolCall } = await load<RunToolCall>("src/tools/run-tool-call.ts");

  const tool = workspaceTools.find((candidate) => candidate.name === "create_file");
  assert.ok(
    tool,
    "workspaceTools has no tool named create_file: register it in workspace-tools.ts",
  );
  assert.equal(tool.effect, "write", "create_file changes the workspace, so its effect is write");

  const base = await realpath(await mkdtemp(join(tmpdir(), "create-file-")));
  const workspace = join(base, "workspace");
  try {
    await writeFile(join(base, "outside.txt"), "outside\n");
    await mkdir(workspace);
    await writeFile(join(workspace, "old.txt"), "keep me\n");
    const context = { cwd: workspace, signal: new AbortController().signal };
    const call = (args: Record<string, unknown>) =>
      runToolCall(
        workspaceTools,
        { id: "c1", function: { name: "create_file", arguments: JSON.stringify(args) } },
        context,
      );

    const created = await call({ path: "src/new/notes.md", content: "# Notes\n" });
    assert.ok(
      created.ok,
      `create_file src/new/notes.md should succeed; it said:\n${created.content}`,
    );
    assert.equal(
      await readFile(join(workspace, "src/new/notes.md"), "utf8"),
      "# Notes\n",
      "the new file must hold exactly the content sent, its folders created as needed",
    );

    const existing = await call({ path: "old.txt", content: "overwritten\n" });
    assert.equal(existing.ok, false, "create_file must not overwrite a file that exists");
    assert.equal(
      existing.code,
      "file_exists",
      "an existing file should be refused with file_exists",
    );
    assert.equal(await readFile(join(workspace, "old.txt"), "utf8"), "keep me\n");

    const outside = await call({ path: "../outside.txt", content: "owned\n" });
    assert.equal(
      outside.code,
      "path_escape",
      "create_file must stay inside the workspace: resolve the path with resolveInWorkspace",
    );
    assert.equal(await readFile(join(base, "outside.txt"), "utf8"), "outside\n");
  } finally {
    await rm(base, { recursive: true, force: true });
  }
}
