// A heredoc with a leading `cd DIR &&`, as Codex accepts it: the patch's paths are read from DIR,
// still inside the workspace. Any other shell text before the heredoc is refused, never dropped.
// The invocations are those of Codex's own tests (codex-rs/apply-patch/src/invocation.rs).
import { describe, expect, it } from "vitest";
import { applyPatch } from "../src/patch/apply-patch.ts";
import { parsePatch } from "../src/patch/parse-patch.ts";
import { tree, workspace } from "./apply-patch-fixtures.ts";

/** Codex's test script: `{prefix}apply_patch <<'PATCH'`, a patch adding `foo`, `PATCH{suffix}`. */
function heredoc(prefix: string, suffix = ""): string {
  return `${prefix}apply_patch <<'PATCH'\n*** Begin Patch\n*** Add File: foo\n+hi\n*** End Patch\nPATCH${suffix}\n`;
}

describe("a heredoc with a leading cd DIR &&", () => {
  it.each([
    ["cd foo && ", "foo/foo"],
    ["cd 'foo bar' && ", "foo bar/foo"],
    ['cd "foo bar" && ', "foo bar/foo"],
    ["cd ./src/lib/ && ", "src/lib/foo"],
    ["", "foo"],
  ])("reads the paths of %j from its folder", (prefix, expected) => {
    const parsed = parsePatch(heredoc(prefix));
    expect(parsed.operations).toMatchObject([{ kind: "add", path: expected, contents: "hi\n" }]);
  });

  it("says in the repairs which folder the paths were read from", () => {
    expect(parsePatch(heredoc("cd 'foo bar' && ")).repairs).toEqual([
      "The patch was wrapped in a heredoc ('cd 'foo bar' && apply_patch <<'PATCH''); the wrapper was removed.",
      "Its paths were read relative to 'foo bar', as its 'cd' says.",
    ]);
  });

  it("writes the file inside DIR, and reports its workspace path", async () => {
    const root = await workspace({ "pkg/a.txt": "one\n" });
    const text =
      "cd pkg && apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: new.txt\n+new\n" +
      "*** Update File: a.txt\n@@\n-one\n+two\n*** End Patch\nEOF\n";
    const result = await applyPatch(text, { cwd: root });
    expect(result.success).toBe(true);
    expect(result.changed.map((file) => `${file.op} ${file.path}`)).toEqual([
      "add pkg/new.txt",
      "update pkg/a.txt",
    ]);
    expect(await tree(root)).toEqual({ "pkg/a.txt": "two\n", "pkg/new.txt": "new\n" });
  });

  it.each(["cd .. && ", "cd pkg/../.. && ", "cd /tmp && ", "cd ~ && "])(
    "keeps %j confined to the workspace",
    async (prefix) => {
      const root = await workspace({ "pkg/a.txt": "one\n" });
      const result = await applyPatch(heredoc(prefix), { cwd: root });
      expect(result.success).toBe(false);
      expect(result.failures[0]?.code).toBe("path_escape");
      expect(await tree(root)).toEqual({ "pkg/a.txt": "one\n" });
    },
  );

  it("leaves an absolute path in the patch absolute, to be refused", async () => {
    const root = await workspace();
    const text =
      "cd pkg && apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: /tmp/x\n+x\n*** End Patch\nEOF\n";
    const result = await applyPatch(text, { cwd: root });
    expect(result.failures[0]).toMatchObject({ path: "/tmp/x", code: "path_escape" });
  });

  it.each([
    "cd foo; ",
    "cd bar || ",
    "cd bar | ",
    "echo foo && ",
    "cd foo && cd bar && ",
    "cd foo bar && ",
    "echo foo; cd bar && ",
    "sudo ",
    "cd $HOME && ",
    'cd "$HOME" && ',
  ])("refuses the shell text %j before the heredoc instead of dropping it", async (prefix) => {
    const root = await workspace({ "keep.txt": "k\n" });
    const result = await applyPatch(heredoc(prefix), { cwd: root });
    expect(result.success).toBe(false);
    expect(result.failures[0]?.code).toBe("invalid_patch");
    expect(result.failures[0]?.message).toBe(
      `The patch must start with '*** Begin Patch', but its first line is '${`${prefix}apply_patch <<'PATCH'`.trim()}'.`,
    );
    expect(await tree(root)).toEqual({ "keep.txt": "k\n" });
  });

  it("refuses an argument to apply_patch, and a command after the heredoc", async () => {
    const root = await workspace();
    const withArgument = heredoc("").replace("apply_patch <<", "apply_patch foo <<");
    for (const text of [withArgument, heredoc("cd bar && ", " && echo done")]) {
      const result = await applyPatch(text, { cwd: root });
      expect(result.failures[0]?.code).toBe("invalid_patch");
    }
    expect(await tree(root)).toEqual({});
  });
});
