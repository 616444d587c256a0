import { realpath, symlink } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { applyPatch } from "../src/patch/apply-patch.ts";
import { patch, tree, workspace } from "./apply-patch-fixtures.ts";

const addFile = (file: string) => patch(`*** Add File: ${file}`, "+hello");

async function failureOf(root: string, patchText: string) {
  const result = await applyPatch(patchText, { cwd: root });
  expect(result.success).toBe(false);
  expect(result.failures).toHaveLength(1);
  return result.failures[0]!;
}

describe("apply_patch path safety", () => {
  const RELATIVE_HINT = 'Use a path relative to the workspace root, such as "src/index.ts".';

  it("refuses an absolute path", async () => {
    const root = await workspace();
    expect(await failureOf(root, addFile("/tmp/evil.txt"))).toEqual({
      path: "/tmp/evil.txt",
      code: "path_escape",
      message: `Path "/tmp/evil.txt" is absolute; only paths relative to the workspace root (${await realpath(root)}) are allowed.`,
      hint: RELATIVE_HINT,
    });
  });

  it('refuses "~" and ".." escapes', async () => {
    const root = await workspace();
    const realRoot = await realpath(root);
    expect(await failureOf(root, addFile("~/x.txt"))).toEqual({
      path: "~/x.txt",
      code: "path_escape",
      message: `Path "~/x.txt" points into a home directory; only files inside the workspace root (${realRoot}) are allowed.`,
      hint: RELATIVE_HINT,
    });
    expect(await failureOf(root, addFile("src/../../x.txt"))).toEqual({
      path: "src/../../x.txt",
      code: "path_escape",
      message: `Path "src/../../x.txt" resolves outside the workspace root (${realRoot}).`,
      hint: `Remove the ".." segments that leave the workspace. ${RELATIVE_HINT}`,
    });
  });

  it("refuses the workspace root itself", async () => {
    const root = await workspace();
    expect(await failureOf(root, patch("*** Delete File: ."))).toEqual({
      path: ".",
      code: "path_escape",
      message: 'Path "." is the workspace root itself, not a file.',
      hint: 'Name a file inside the workspace, such as "src/index.ts".',
    });
  });

  it("refuses a symlink that leads outside the workspace", async () => {
    const outside = await workspace({ "secret.txt": "s\n" });
    const root = await workspace();
    await symlink(outside, path.join(root, "out"));
    expect(await failureOf(root, addFile("out/secret2.txt"))).toEqual({
      path: "out/secret2.txt",
      code: "symlink",
      message: `Path "out/secret2.txt" goes through a symlink that leads to "${await realpath(outside)}", outside the workspace root (${await realpath(root)}).`,
      hint: `Symlinks leading outside the workspace cannot be read or written. ${RELATIVE_HINT}`,
    });
    expect(await tree(outside)).toEqual({ "secret.txt": "s\n" });
  });
});
