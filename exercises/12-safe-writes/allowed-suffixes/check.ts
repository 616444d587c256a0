// Exercise "Your own allow-list": AGENT_ALLOWED_SUFFIXES=.tex,.bib extends apply_patch's suffix
// list. allowedSuffixesFrom() in write-path.ts parses the variable (never letting .env in),
// main.ts reads it, and the tool passes ToolContext.allowedSuffixes on to applyPatch.
import assert from "node:assert/strict";
import { mkdtemp, readFile, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

interface WritePaths {
  DEFAULT_ALLOWED_SUFFIXES: readonly string[];
  allowedSuffixesFrom?: (value: string | undefined) => readonly string[];
}
interface Tool {
  execute(
    args: { patch: string },
    context: { cwd: string; signal: AbortSignal; allowedSuffixes?: readonly string[] },
  ): Promise<{ ok: boolean; content: string; code?: string }>;
}

const ADD_TEX = "*** Begin Patch\n*** Add File: paper.tex\n+\\section{Intro}\n*** End Patch\n";

export default async function check(chapterDir: string): Promise<void> {
  const load = async <T>(path: string) =>
    (await import(pathToFileURL(join(chapterDir, path)).href)) as T;
  const paths = await load<WritePaths>("src/patch/write-path.ts");
  const from = paths.allowedSuffixesFrom;
  assert.ok(
    typeof from === "function",
    "src/patch/write-path.ts should export allowedSuffixesFrom(value: string | undefined)",
  );
  assert.deepEqual(
    [...from(undefined)].sort(),
    [...paths.DEFAULT_ALLOWED_SUFFIXES].sort(),
    "without the variable, the list is the default list",
  );
  const extended = from(" .tex, BIB ,");
  for (const suffix of [".tex", ".bib", ".ts", ".md"]) {
    assert.ok(
      extended.includes(suffix),
      `allowedSuffixesFrom(" .tex, BIB ,") should include ${suffix}: it extends the default list, with or without the dot, in any case`,
    );
  }
  assert.ok(
    !from(".env").includes(".env") && !from("env,.tex").includes(".env"),
    'allowedSuffixesFrom must never add ".env": every .env* file counts as .env, and they hold secrets',
  );

  const main = await readFile(join(chapterDir, "src/main.ts"), "utf8");
  assert.match(
    main,
    /AGENT_ALLOWED_SUFFIXES/,
    "src/main.ts should read process.env.AGENT_ALLOWED_SUFFIXES",
  );

  const { applyPatchTool } = await load<{ applyPatchTool: Tool }>("src/tools/apply-patch-tool.ts");
  const root = await realpath(await mkdtemp(join(tmpdir(), "allowed-suffixes-")));
  try {
    const signal = new AbortController().signal;
    const refused = await applyPatchTool.execute({ patch: ADD_TEX }, { cwd: root, signal });
    assert.equal(refused.code, "disallowed_path", "without the extra suffix, .tex stays refused");
    const added = await applyPatchTool.execute(
      { patch: ADD_TEX },
      { cwd: root, signal, allowedSuffixes: from(".tex") },
    );
    assert.equal(
      added.ok,
      true,
      `with ToolContext.allowedSuffixes including .tex, apply_patch should write paper.tex; got: ${added.content}`,
    );
    assert.equal(await readFile(join(root, "paper.tex"), "utf8"), "\\section{Intro}\n");
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
