// Exercise "Context around a match": search_text takes an optional `context` and shows that many
// lines before and after each match as "path-line- text", the match itself still "path:line: text",
// no line twice, and the cap still counts matches.
import assert from "node:assert/strict";
import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
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

const TEXT = ["alpha", "beta", "needle 1", "gamma", "needle 2", "delta", "epsilon", "zeta"];

export default async function check(chapterDir: string): Promise<void> {
  const load = async <T>(path: string) =>
    (await import(pathToFileURL(join(chapterDir, path)).href)) as T;
  const { runToolCall } = await load<Modules>("src/tools/run-tool-call.ts");
  const { searchTextTool } = await load<{ searchTextTool: unknown }>("src/tools/search-text.ts");

  const workspace = await realpath(await mkdtemp(join(tmpdir(), "search-context-")));
  try {
    await writeFile(join(workspace, "a.txt"), TEXT.join("\n") + "\n");
    // 150 matches, each between two lines of filler: the cap must count the matches only.
    const many = Array.from({ length: 150 }, (_, i) => `filler\nneedle ${i}\nfiller`).join("\n");
    await writeFile(join(workspace, "many.txt"), many + "\n");
    const search = async (args: object) => {
      const result = await runToolCall(
        [searchTextTool],
        { id: "s", function: { name: "search_text", arguments: JSON.stringify(args) } },
        { cwd: workspace, signal: new AbortController().signal },
      );
      assert.ok(result.ok, `search_text ${JSON.stringify(args)} failed:\n${result.content}`);
      return result.content;
    };

    assert.equal(
      await search({ query: "needle", glob: "a.txt" }),
      "a.txt:3: needle 1\na.txt:5: needle 2",
      "without context the answer must stay as it was",
    );
    assert.equal(
      await search({ query: "needle", glob: "a.txt", context: 1 }),
      [
        "a.txt-2- beta",
        "a.txt:3: needle 1",
        "a.txt-4- gamma",
        "a.txt:5: needle 2",
        "a.txt-6- delta",
      ].join("\n"),
      "with context=1, each match gets one line either side as path-line- text, and gamma (the context of both) only once",
    );

    const capped = await search({ query: "needle", glob: "many.txt", context: 1 });
    const shownMatches = capped.split("\n").filter((line) => /^many\.txt:\d+: /.test(line));
    assert.equal(
      shownMatches.length,
      100,
      `the cap counts matches, not printed lines: expected 100 matches with context=1, got ${shownMatches.length}`,
    );
    assert.match(
      capped,
      /50 more matches not shown/,
      "the answer should say 50 matches were left out",
    );
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}
