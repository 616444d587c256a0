import { mkdir, readdir, realpath, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { applyPatch } from "../src/patch/apply-patch.ts";
import { resolveWritePath } from "../src/patch/write-path.ts";
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

  it("refuses to write through a symlinked file, even one pointing inside the workspace", async () => {
    const root = await workspace({ "real.txt": "old\n" });
    await symlink(path.join(root, "real.txt"), path.join(root, "link.txt"));
    const failure = await failureOf(root, patch("*** Update File: link.txt", "@@", "-old", "+new"));
    expect(failure).toEqual({
      path: "link.txt",
      code: "symlink",
      message:
        "Refusing to write link.txt: link.txt is a symbolic link, and apply_patch does not write through links.",
      hint: "Patch the file the link points to, using its real path.",
    });
    expect(await tree(root)).toEqual({ "real.txt": "old\n", "link.txt": "old\n" });
  });

  it("refuses a symlinked parent folder", async () => {
    const root = await workspace({ "real/a.txt": "old\n" });
    await symlink(path.join(root, "real"), path.join(root, "alias"));
    const failure = await failureOf(root, addFile("alias/b.txt"));
    expect(failure.code).toBe("symlink");
    expect(failure.message).toBe(
      "Refusing to write alias/b.txt: alias is a symbolic link, and apply_patch does not write through links.",
    );
    expect(await readdir(path.join(root, "real"))).toEqual(["a.txt"]);
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

  it("refuses .git/, node_modules/ and .agent/", async () => {
    const root = await workspace({ ".git/config": "[core]\n" });
    expect(await failureOf(root, addFile(".git/hooks/pre-commit"))).toEqual({
      path: ".git/hooks/pre-commit",
      code: "disallowed_path",
      message:
        "Refusing to write .git/hooks/pre-commit: .git/ holds git's own database, which apply_patch never edits.",
      hint: "Leave .git/ alone: change the working tree files, git records them.",
    });
    const modules = await failureOf(root, addFile("packages/a/node_modules/x/index.js"));
    expect(modules.code).toBe("disallowed_path");
    expect(modules.message).toBe(
      "Refusing to write packages/a/node_modules/x/index.js: node_modules/ holds installed packages, which apply_patch never edits.",
    );
    expect(modules.hint).toBe(
      "Change the project's own sources or package.json instead; installed packages are rewritten on every install.",
    );
    expect((await failureOf(root, addFile(".agent/runs/x.json"))).code).toBe("disallowed_path");
  });

  it("refuses those folders in any case, and takes a folder named like Object's properties as a folder", async () => {
    const root = await workspace();
    const upper = await failureOf(root, addFile(".GIT/hooks/pre-commit"));
    expect(upper.message).toBe(
      "Refusing to write .GIT/hooks/pre-commit: .GIT/ holds git's own database, which apply_patch never edits.",
    );
    expect((await failureOf(root, addFile("NODE_MODULES/x/index.js"))).code).toBe(
      "disallowed_path",
    );
    const result = await applyPatch(addFile("constructor/toString/a.ts"), { cwd: root });
    expect(result.failures).toEqual([]);
    expect(result.success).toBe(true);
  });

  it("refuses suffixes off the allow-list: binaries and secrets", async () => {
    const root = await workspace();
    expect(await failureOf(root, addFile("img/logo.png"))).toEqual({
      path: "img/logo.png",
      code: "disallowed_path",
      message:
        'Refusing to write img/logo.png: ".png" files are not on apply_patch\'s list of text file suffixes (binary files and secrets are kept out).',
      hint: 'Patch source and text files only. If img/logo.png really is plain text, ask the user to add ".png" to the allowed suffixes.',
    });
    for (const file of [".env", ".env.local", "certs/server.pem", "id.key", "dist.zip"]) {
      expect((await failureOf(root, addFile(file))).code, file).toBe("disallowed_path");
    }
  });

  it("allows extensionless files and a custom suffix list", async () => {
    const root = await workspace();
    const result = await applyPatch(patch("*** Add File: Makefile", "+all:"), { cwd: root });
    expect(result.success).toBe(true);
    const custom = await applyPatch(addFile("notes.weird"), {
      cwd: root,
      allowedSuffixes: [".weird"],
    });
    expect(custom.success).toBe(true);
  });

  it("resolves a path to its real absolute path and normalised relative path", async () => {
    const root = await workspace({ "src/a.ts": "" });
    await mkdir(path.join(root, "src/deep"));
    await writeFile(path.join(root, "src/deep/b.ts"), "");
    const resolved = await resolveWritePath(root, "./src//deep/../a.ts");
    expect(resolved.relative).toBe("src/a.ts");
    expect(resolved.absolute.endsWith(path.join("src", "a.ts"))).toBe(true);
  });
});
