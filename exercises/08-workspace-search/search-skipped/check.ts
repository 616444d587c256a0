// Exercise "Say what the search skipped": search_text ends its answer, with matches or without,
// with how many files it skipped as binary or too large, and says nothing when it skipped none.
import assert from "node:assert/strict";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
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

export default async function check(chapterDir: string): Promise<void> {
  const load = async <T>(path: string) =>
    (await import(pathToFileURL(join(chapterDir, path)).href)) as T;
  const { runToolCall } = await load<Modules>("src/tools/run-tool-call.ts");
  const { searchTextTool } = await load<{ searchTextTool: unknown }>("src/tools/search-text.ts");

  const workspace = await realpath(await mkdtemp(join(tmpdir(), "search-skipped-")));
  try {
    await mkdir(join(workspace, "data"));
    await writeFile(join(workspace, "data", "image.bin"), Buffer.from("needle\0needle"));
    await writeFile(join(workspace, "data", "dump.sql"), "-- needle\n" + "x".repeat(1_100_000));
    await mkdir(join(workspace, "src"));
    await writeFile(join(workspace, "src", "cart.mjs"), "const needle = 1;\n");
    const search = async (args: object) => {
      const result = await runToolCall(
        [searchTextTool],
        { id: "s", function: { name: "search_text", arguments: JSON.stringify(args) } },
        { cwd: workspace, signal: new AbortController().signal },
      );
      assert.ok(result.ok, `search_text ${JSON.stringify(args)} failed:\n${result.content}`);
      return result.content;
    };
    const saysSkipped = (content: string, count: number, what: string) => {
      const last = content.split("\n").at(-1) ?? "";
      assert.match(
        last,
        new RegExp(`\\b${count}\\b.*skipped|skipped.*\\b${count}\\b`, "i"),
        `${what}: the last line should say that ${count} file(s) were skipped; the answer was:\n${content}`,
      );
      assert.match(last, /binary/i, `${what}: the last line should say why (binary, or too large)`);
    };

    const none = await search({ query: "needle", path: "data" });
    assert.match(none, /^No matches/, `only skipped files contain the needle:\n${none}`);
    saysSkipped(none, 2, "with no matches");

    const some = await search({ query: "needle" });
    assert.match(some, /^src\/cart\.mjs:1: const needle = 1;$/m, `the match is missing:\n${some}`);
    saysSkipped(some, 2, "with matches");

    const clean = await search({ query: "needle", path: "src" });
    assert.equal(
      clean,
      "src/cart.mjs:1: const needle = 1;",
      "when nothing was skipped the answer must stay as it was, without a note",
    );
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}
