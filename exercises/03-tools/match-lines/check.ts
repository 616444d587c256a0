// Exercise "Say where the matches are": edit_file's ambiguous_match names the line on which each
// occurrence of old_text starts, "(at lines 2, 4, 7)", and still changes nothing.
import assert from "node:assert/strict";
import { mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

interface ToolCallResult {
  ok: boolean;
  content: string;
  code?: string;
}
interface RunToolCall {
  runToolCall(
    tools: readonly unknown[],
    call: { id: string; function: { name: string; arguments: string } },
    context: { cwd: string; signal: AbortSignal },
  ): Promise<ToolCallResult>;
}

const TEXT = "start\ncount++;\nmiddle\ncount++;\nx\ny\ncount++;\nend\n";

export default async function check(chapterDir: string): Promise<void> {
  const load = async <T>(path: string) =>
    (await import(pathToFileURL(join(chapterDir, path)).href)) as T;
  const { workspaceTools } = await load<{ workspaceTools: unknown[] }>(
    "src/tools/workspace-tools.ts",
  );
  const { runToolCall } = await load<RunToolCall>("src/tools/run-tool-call.ts");

  const workspace = await realpath(await mkdtemp(join(tmpdir(), "match-lines-")));
  try {
    await writeFile(join(workspace, "a.js"), TEXT);
    const context = { cwd: workspace, signal: new AbortController().signal };
    const edit = (old_text: string) =>
      runToolCall(
        workspaceTools,
        {
          id: "c1",
          function: {
            name: "edit_file",
            arguments: JSON.stringify({ path: "a.js", old_text, new_text: "count--;" }),
          },
        },
        context,
      );

    const three = await edit("count++;");
    assert.equal(three.code, "ambiguous_match", `three matches are ambiguous:\n${three.content}`);
    assert.ok(
      three.content.split("\n")[0]?.includes("(at lines 2, 4, 7)"),
      `the first line should name where each match starts, "(at lines 2, 4, 7)":\n${three.content}`,
    );
    assert.equal(await readFile(join(workspace, "a.js"), "utf8"), TEXT, "nothing may change");

    // A match that spans lines is found at the line it starts on.
    const spanning = await edit("\ncount++;\n");
    assert.ok(
      spanning.content.split("\n")[0]?.includes("(at lines 1, 3, 6)"),
      `"\\ncount++;\\n" starts at the end of lines 1, 3 and 6:\n${spanning.content}`,
    );

    const once = await edit("middle\ncount++;");
    assert.ok(once.ok, `a unique old_text is still replaced:\n${once.content}`);
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}
