// Exercise "Hard links": read_file refuses a file with more than one hard link with the code
// hard_link, without quoting it, because realpath cannot tell a hard link from the file itself.
import assert from "node:assert/strict";
import { link, mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

interface ToolCallResult {
  ok: boolean;
  content: string;
  code?: string;
}
interface Modules {
  runToolCall(
    tools: readonly unknown[],
    call: { id: string; function: { name: string; arguments: string } },
    context: { cwd: string; signal: AbortSignal },
  ): Promise<ToolCallResult>;
}

const SECRET = "Host prod\n  IdentityFile ~/.ssh/prod-do-not-send\n";

export default async function check(chapterDir: string): Promise<void> {
  const load = async <T>(path: string) =>
    (await import(pathToFileURL(join(chapterDir, path)).href)) as T;
  const { runToolCall } = await load<Modules>("src/tools/run-tool-call.ts");
  const { readFileTool } = await load<{ readFileTool: unknown }>("src/tools/read-file.ts");

  // One scratch folder holds the workspace and, beside it, the file outside it.
  const base = await realpath(await mkdtemp(join(tmpdir(), "hard-links-")));
  try {
    const workspace = join(base, "workspace");
    await mkdir(workspace);
    await writeFile(join(base, "ssh-config"), SECRET);
    await link(join(base, "ssh-config"), join(workspace, "notes.txt"));
    await writeFile(join(workspace, "README.md"), "# demo\n");
    const context = { cwd: workspace, signal: new AbortController().signal };
    const read = (path: string) =>
      runToolCall(
        [readFileTool],
        { id: "c1", function: { name: "read_file", arguments: JSON.stringify({ path }) } },
        context,
      );

    const linked = await read("notes.txt");
    assert.equal(
      linked.ok,
      false,
      `notes.txt is a hard link to a file outside the workspace and should be refused; it showed:\n${linked.content}`,
    );
    assert.equal(linked.code, "hard_link", "read_file notes.txt should fail with code hard_link");
    assert.ok(!linked.content.includes("do-not-send"), "the refusal must not quote the file");

    const plain = await read("README.md");
    assert.ok(plain.ok, `README.md has one link and should be read; it said:\n${plain.content}`);
  } finally {
    await rm(base, { recursive: true, force: true });
  }
}
