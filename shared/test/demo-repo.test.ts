import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { copyDemoRepo, DEMO_REPO_DIR, runDemoCheck } from "../src/demo-repo.ts";
import { loadScript } from "../src/offline-model/index.ts";
import { readTree, writeTree } from "../src/test-helpers.ts";

const copies: string[] = [];
afterEach(async () => {
  await Promise.all(copies.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function scratch(): Promise<string> {
  const dir = await copyDemoRepo("demo-repo-test-");
  copies.push(dir);
  return dir;
}

/** The single Update hunk of the fix-bug script's apply_patch call. */
function fixBugPatch(): { path: string; anchor: string; removed: string[]; added: string[] } {
  const call = loadScript("fix-bug").steps[1]?.reply.toolCalls?.[0];
  expect(call?.name).toBe("apply_patch");
  const patch = (JSON.parse(call!.arguments) as { patch: string }).patch;
  const lines = patch.split("\n");
  expect(lines[0]).toBe("*** Begin Patch");
  expect(lines.at(-2)).toBe("*** End Patch");
  expect(lines.at(-1)).toBe("");
  const body = lines.slice(2, -2);
  expect(body.every((line) => /^[-+@]/.test(line))).toBe(true);
  return {
    path: lines[1]!.replace("*** Update File: ", ""),
    anchor: body[0]!.replace(/^@@ /, ""),
    removed: body.filter((line) => line.startsWith("-")).map((line) => line.slice(1)),
    added: body.filter((line) => line.startsWith("+")).map((line) => line.slice(1)),
  };
}

describe("demo repository", () => {
  it("copies to a scratch folder that matches the original", async () => {
    const dir = await scratch();
    expect(dir).not.toBe(DEMO_REPO_DIR);
    const copy = await readTree(dir);
    expect(copy).toEqual(await readTree(DEMO_REPO_DIR));
    expect(Object.keys(copy)).toEqual([
      ".agents/skills/run-checks/SKILL.md",
      ".gitignore",
      "AGENTS.md",
      "README.md",
      "check.mjs",
      "package.json",
      "src/cart.mjs",
      "src/format.mjs",
    ]);
  });

  it("fails its check on the original bug, with a message that shows it", async () => {
    const result = await runDemoCheck(await scratch());
    expect(result.ok).toBe(false);
    expect(result.output).toBe(
      "FAIL total with a $5.00 coupon and 20% tax: expected $24.00, got $25.00\n1 of 7 checks failed\n",
    );
  });

  it("passes its check once the fix-bug script's patch is applied", async () => {
    const dir = await scratch();
    const { path, anchor, removed, added } = fixBugPatch();
    const file = join(dir, path);
    const before = await readFile(file, "utf8");
    // The anchor and the removed lines exist verbatim, once, and the removed lines follow the anchor.
    const anchorAt = before.indexOf(`${anchor}\n`);
    const oldBlock = `${removed.join("\n")}\n`;
    expect(before.split(`${anchor}\n`)).toHaveLength(2);
    expect(before.split(oldBlock)).toHaveLength(2);
    expect(before.indexOf(oldBlock)).toBe(anchorAt + anchor.length + 1);

    await writeTree(dir, { [path]: before.replace(oldBlock, `${added.join("\n")}\n`) });
    expect(await runDemoCheck(dir)).toEqual({ ok: true, output: "all checks passed (7)\n" });
    // The original is untouched.
    expect(await runDemoCheck(DEMO_REPO_DIR)).toMatchObject({ ok: false });
  });
});
