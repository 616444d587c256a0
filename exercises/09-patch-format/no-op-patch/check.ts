// Exercise "Say when a patch changes nothing": a patch that applies but leaves every file as it
// was gets a summary line that says so, instead of "Patch applied: M a.txt."
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

interface ApplyPatchResult {
  success: boolean;
  files_changed: number;
}

interface Engine {
  applyPatch(patchText: string, options: { cwd: string }): Promise<ApplyPatchResult>;
}

interface Tool {
  summarizePatchResult(result: ApplyPatchResult): string;
}

const patchOf = (...hunk: string[]) =>
  ["*** Begin Patch", "*** Update File: a.txt", "@@", ...hunk, "*** End Patch", ""].join("\n");

export default async function check(chapterDir: string): Promise<void> {
  const engine = (await import(
    pathToFileURL(join(chapterDir, "src/patch/apply-patch.ts")).href
  )) as Engine;
  const tool = (await import(
    pathToFileURL(join(chapterDir, "src/tools/apply-patch-tool.ts")).href
  )) as Tool;
  const workspace = await mkdtemp(join(tmpdir(), "no-op-patch-"));
  try {
    await writeFile(join(workspace, "a.txt"), "one\ntwo\n");

    const same = await engine.applyPatch(patchOf("-one", "+one"), { cwd: workspace });
    assert.equal(same.success, true, "a patch whose '-' and '+' lines are equal still applies");
    assert.equal(same.files_changed, 0, "it changes no file");
    const summary = tool.summarizePatchResult(same);
    assert.match(
      summary,
      /no file changed|changed nothing|nothing changed/i,
      `the summary of a patch that changed nothing should say so; it is: ${summary}`,
    );
    assert.doesNotMatch(
      summary,
      /^Patch applied: M a\.txt\.$/,
      "'Patch applied: M a.txt.' tells the model its patch did something",
    );

    const real = await engine.applyPatch(patchOf("-one", "+ONE"), { cwd: workspace });
    assert.equal(
      tool.summarizePatchResult(real),
      "Patch applied: M a.txt.",
      "a patch that changes a file keeps the usual summary",
    );
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}
