// Exercise "An .agentignore": a file with .gitignore syntax, in any folder, hides paths from
// list_files and search_text that git would show; .gitignore keeps working beside it.
import assert from "node:assert/strict";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

interface ToolCallResult {
  ok: boolean;
  content: string;
}
interface Modules {
  runToolCall(
    tools: readonly unknown[],
    call: { id: string; function: { name: string; arguments: string } },
    context: { cwd: string; signal: AbortSignal },
  ): Promise<ToolCallResult>;
}

const FILES: Record<string, string> = {
  ".gitignore": "dist/\n",
  ".agentignore": "fixtures/\n*.snap\n",
  "src/cart.ts": "needle in the source\n",
  "src/__snapshots__/cart.snap": "needle in a snapshot\n",
  "fixtures/orders.json": '{"note": "needle in a fixture"}\n',
  "dist/cart.js": "needle in the build\n",
  "vendor/.agentignore": "lib.js\n",
  "vendor/lib.js": "needle in vendored code\n",
  "vendor/README.md": "needle in the vendor notes\n",
};

export default async function check(chapterDir: string): Promise<void> {
  const load = async <T>(path: string) =>
    (await import(pathToFileURL(join(chapterDir, path)).href)) as T;
  const { runToolCall } = await load<Modules>("src/tools/run-tool-call.ts");
  const { workspaceTools } = await load<{ workspaceTools: unknown[] }>(
    "src/tools/workspace-tools.ts",
  );

  const workspace = await realpath(await mkdtemp(join(tmpdir(), "agentignore-")));
  try {
    for (const [path, text] of Object.entries(FILES)) {
      await mkdir(dirname(join(workspace, path)), { recursive: true });
      await writeFile(join(workspace, path), text);
    }
    const call = async (name: string, args: object) => {
      const result = await runToolCall(
        workspaceTools,
        { id: "t", function: { name, arguments: JSON.stringify(args) } },
        { cwd: workspace, signal: new AbortController().signal },
      );
      assert.ok(result.ok, `${name} ${JSON.stringify(args)} failed:\n${result.content}`);
      return result.content;
    };

    const listed = await call("list_files", {});
    for (const hidden of ["fixtures/orders.json", "src/__snapshots__/cart.snap", "vendor/lib.js"]) {
      assert.ok(
        !listed.includes(hidden),
        `list_files shows ${hidden}, which an .agentignore hides:\n${listed}`,
      );
    }
    assert.ok(!listed.includes("dist/cart.js"), ".gitignore must still apply beside .agentignore");
    for (const visible of ["src/cart.ts", "vendor/README.md"]) {
      assert.ok(listed.includes(visible), `list_files should still show ${visible}:\n${listed}`);
    }

    const found = await call("search_text", { query: "needle" });
    assert.equal(
      found,
      "src/cart.ts:1: needle in the source\nvendor/README.md:1: needle in the vendor notes",
      "search_text should find the needle only in files neither .gitignore nor .agentignore hides",
    );
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}
