// Exercise "A file_info tool": a registered tool that returns a file's size, line count and
// SHA-256 without its contents, and refuses a directory with is_directory.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
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

const TEXT = "one\ntwo\nthree\n"; // 14 bytes, 3 lines

export default async function check(chapterDir: string): Promise<void> {
  const load = async <T>(path: string) =>
    (await import(pathToFileURL(join(chapterDir, path)).href)) as T;
  const { workspaceTools } = await load<{ workspaceTools: Tool[] }>("src/tools/workspace-tools.ts");
  const { runToolCall } = await load<RunToolCall>("src/tools/run-tool-call.ts");

  const tool = workspaceTools.find((candidate) => candidate.name === "file_info");
  assert.ok(tool, "workspaceTools has no tool named file_info: register it in workspace-tools.ts");
  assert.equal(tool.effect, "read", "file_info only looks, so its effect is read");

  const workspace = await realpath(await mkdtemp(join(tmpdir(), "file-info-")));
  try {
    await writeFile(join(workspace, "a.txt"), TEXT);
    await mkdir(join(workspace, "src"));
    const context = { cwd: workspace, signal: new AbortController().signal };
    const call = (path: string) =>
      runToolCall(
        workspaceTools,
        { id: "c1", function: { name: "file_info", arguments: JSON.stringify({ path }) } },
        context,
      );

    const info = await call("a.txt");
    assert.ok(info.ok, `file_info a.txt should succeed; it said:\n${info.content}`);
    assert.match(info.content, /\b14 bytes\b/, `the size in bytes is missing:\n${info.content}`);
    assert.match(info.content, /\b3 lines\b/, `the line count is missing:\n${info.content}`);
    const hash = createHash("sha256").update(TEXT).digest("hex");
    assert.ok(info.content.includes(hash), `the SHA-256 of the file is missing:\n${info.content}`);
    assert.doesNotMatch(info.content, /three/, "file_info must not show the file's contents");

    const folder = await call("src");
    assert.equal(folder.ok, false, "a directory has no size or lines: file_info should refuse it");
    assert.equal(folder.code, "is_directory", `a directory should be refused with is_directory`);

    const missing = await call("nope.txt");
    assert.equal(missing.code, "file_not_found", "a missing file should be file_not_found");

    const outside = await call("../secret.txt");
    assert.equal(
      outside.code,
      "path_escape",
      "file_info must stay inside the workspace: resolve the path with resolveWorkspacePath",
    );
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}
