// Exercise "Keep secrets out of the context": read_file refuses .env and .env.* files in any
// folder with the code secret_file, also when the model reaches one through a symlink.
import assert from "node:assert/strict";
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
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

const SECRET = "OPENAI_API_KEY=sk-do-not-send-me";

export default async function check(chapterDir: string): Promise<void> {
  const load = async <T>(path: string) =>
    (await import(pathToFileURL(join(chapterDir, path)).href)) as T;
  const { runToolCall } = await load<Modules>("src/tools/run-tool-call.ts");
  const { readFileTool } = await load<{ readFileTool: unknown }>("src/tools/read-file.ts");

  const workspace = await realpath(await mkdtemp(join(tmpdir(), "secret-files-")));
  try {
    await writeFile(join(workspace, ".env"), `${SECRET}\n`);
    await mkdir(join(workspace, "config"));
    await writeFile(join(workspace, "config", ".env.local"), `${SECRET}\n`);
    await writeFile(join(workspace, "env.ts"), "export const env = process.env;\n");
    await symlink(".env", join(workspace, "notes.txt"));
    const context = { cwd: workspace, signal: new AbortController().signal };
    const read = (path: string) =>
      runToolCall(
        [readFileTool],
        { id: "c1", function: { name: "read_file", arguments: JSON.stringify({ path }) } },
        context,
      );

    for (const path of [".env", "config/.env.local"]) {
      const result = await read(path);
      assert.equal(
        result.ok,
        false,
        `read_file ${path} should be refused; it showed:\n${result.content}`,
      );
      assert.equal(
        result.code,
        "secret_file",
        `read_file ${path} should fail with code secret_file`,
      );
      assert.ok(
        !result.content.includes("sk-do-not"),
        `the refusal of ${path} must not quote the file`,
      );
    }

    const viaLink = await read("notes.txt");
    assert.equal(
      viaLink.code,
      "secret_file",
      "notes.txt is a symlink to .env: decide on the path resolveWorkspacePath returns, not on the name the model sent",
    );
    assert.ok(!viaLink.content.includes("sk-do-not"), "the secret leaked through the symlink");

    const ordinary = await read("env.ts");
    assert.ok(
      ordinary.ok,
      `env.ts is an ordinary file and should be read; it said:\n${ordinary.content}`,
    );
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}
