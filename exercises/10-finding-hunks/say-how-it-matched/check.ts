// Exercise "Say how it matched": the summary line of apply_patch names the level of every hunk
// that did not match exactly, so the person watching (and the model) see a loose match.
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

interface ApplyPatchResult {
  success: boolean;
  files_changed: number;
  changed: Array<{ op: "add" | "update" | "delete"; path: string; matched?: string[] }>;
  failures: Array<{ path: string; code: string; message: string; hint: string }>;
  repairs: string[];
  notes?: string[];
}

interface Engine {
  applyPatch(patchText: string, options: { cwd: string }): Promise<ApplyPatchResult>;
}

interface Tool {
  summarizePatchResult(result: ApplyPatchResult): string;
}

const result = (changed: ApplyPatchResult["changed"]): ApplyPatchResult => ({
  success: true,
  files_changed: changed.length,
  changed,
  failures: [],
  repairs: [],
});

export default async function check(chapterDir: string): Promise<void> {
  const module = (path: string) => import(pathToFileURL(join(chapterDir, path)).href);
  const tool = (await module("src/tools/apply-patch-tool.ts")) as Tool;
  const engine = (await module("src/patch/apply-patch.ts")) as Engine;

  const exact = result([
    { op: "update", path: "a.ts", matched: ["exact", "exact"] },
    { op: "add", path: "b.ts" },
  ]);
  assert.equal(
    tool.summarizePatchResult(exact),
    "Patch applied: M a.ts, A b.ts.",
    "when every hunk matched exactly, the summary stays as it was",
  );

  const loose = tool.summarizePatchResult(
    result([
      { op: "update", path: "a.ts", matched: ["exact", "punctuation"] },
      { op: "update", path: "c.ts", matched: ["exact"] },
    ]),
  );
  assert.match(loose, /^Patch applied: /, `it still starts with "Patch applied: ": ${loose}`);
  assert.match(
    loose,
    /a\.ts[^,]*punctuation/,
    `a.ts's punctuation match should be named: ${loose}`,
  );
  assert.doesNotMatch(loose, /c\.ts[^,]*exact/, `an exact match needs no mention: ${loose}`);
  assert.ok(!loose.includes("\n"), "the summary is one line: the JSON result follows it");

  // The real thing: the demo's slip, removed lines indented with 4 spaces where the file has 2.
  const workspace = await mkdtemp(join(tmpdir(), "say-how-"));
  try {
    await writeFile(join(workspace, "cart.mjs"), "function total() {\n  return 1;\n}\n");
    const patch = [
      "*** Begin Patch",
      "*** Update File: cart.mjs",
      "@@ function total() {",
      "-    return 1;",
      "+  return 2;",
      "*** End Patch",
      "",
    ].join("\n");
    const applied = await engine.applyPatch(patch, { cwd: workspace });
    const summary = tool.summarizePatchResult(applied);
    assert.match(
      summary,
      /cart\.mjs[^,]*surrounding_whitespace/,
      `the summary should say cart.mjs matched at surrounding_whitespace: ${summary}`,
    );
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}
