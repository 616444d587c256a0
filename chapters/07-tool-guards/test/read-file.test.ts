import { createHash } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runToolCall } from "../src/tools/run-tool-call.ts";
import { readFileTool, viewFile } from "../src/tools/read-file.ts";
import { useTempWorkspace } from "./tool-test-workspace.ts";

const workspace = useTempWorkspace();
const hashOf = (text: string) => createHash("sha256").update(text).digest("hex");
const numbered = (count: number) =>
  Array.from({ length: count }, (_, i) => `line ${i + 1}`).join("\n") + "\n";

async function put(relPath: string, content: string | Uint8Array) {
  const file = path.join(workspace.root(), relPath);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, content);
}

async function read(args: object) {
  return runToolCall(
    [readFileTool],
    { id: "r", function: { name: "read_file", arguments: JSON.stringify(args) } },
    workspace.context(),
  );
}

describe("read_file", () => {
  it("shows a whole file with line numbers and its hash", async () => {
    const text = "const a = 1;\r\nconst b = 2;\n";
    await put("src/a.ts", text);
    expect((await read({ path: "src/a.ts" })).content).toBe(
      `src/a.ts: full read, lines 1-2 of 2, sha256 ${hashOf(text)}\n` +
        "    1\tconst a = 1;\n" +
        "    2\tconst b = 2;",
    );
  });

  it("shows a range, with the hash of the whole file", async () => {
    const text = numbered(10);
    await put("a.txt", text);
    const view = await viewFile(workspace.root(), "a.txt", { offset: 4, limit: 2 });
    expect(view).toEqual({
      text: `a.txt: partial read, lines 4-5 of 10, sha256 of the whole file ${hashOf(text)}\n    4\tline 4\n    5\tline 5`,
      path: "a.txt",
      sha256: hashOf(text),
      fullRead: false,
    });
  });

  it("counts offset=1 with a limit covering everything as a full read", async () => {
    await put("a.txt", numbered(3));
    expect((await viewFile(workspace.root(), "a.txt", { offset: 1, limit: 50 })).fullRead).toBe(
      true,
    );
    expect((await viewFile(workspace.root(), "a.txt", { offset: 2 })).fullRead).toBe(false);
  });

  it("truncates long files and says exactly how to read the rest", async () => {
    const text = numbered(5400);
    await put("big.txt", text);
    const view = await viewFile(workspace.root(), "big.txt");
    const lines = view.text.split("\n");
    expect(view.fullRead).toBe(false);
    expect(lines[0]).toBe(
      `big.txt: partial read, lines 1-2000 of 5400, sha256 of the whole file ${hashOf(text)}`,
    );
    expect(lines[2000]).toBe(" 2000\tline 2000");
    expect(lines.at(-1)).toBe(
      "... truncated: lines 2001-5400 not shown; call read_file with offset=2001",
    );
    const next = await viewFile(workspace.root(), "big.txt", { offset: 2001 });
    expect(next.text.split("\n")[1]).toBe(" 2001\tline 2001");
  });

  it("caps the bytes of one call as well as the lines", async () => {
    await put("wide.txt", `${"x".repeat(1500)}\n`.repeat(100));
    const view = await viewFile(workspace.root(), "wide.txt");
    expect(view.text.length).toBeLessThan(100_000 + 200);
    expect(view.text).toMatch(
      /\n\.\.\. truncated: lines (\d+)-100 not shown; call read_file with offset=\1$/,
    );
  });

  it("cuts very long lines and does not count that as a full read", async () => {
    await put("min.js", `${"y".repeat(5000)}\n`);
    const view = await viewFile(workspace.root(), "min.js");
    expect(view.fullRead).toBe(false);
    expect(view.text).toContain(`${"y".repeat(2000)}… [line cut]`);
    expect(view.text.split("\n").at(-1)).toBe(
      "... 1 long line(s) cut at 2000 characters; read_file cannot show the rest of them",
    );
  });

  it("reads an empty file", async () => {
    await put("empty.txt", "");
    expect((await read({ path: "empty.txt" })).content).toBe(
      `empty.txt: empty file, full read, sha256 ${hashOf("")}`,
    );
  });

  it("refuses binary files", async () => {
    const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]);
    await put("logo.png", bytes);
    expect(await read({ path: "logo.png" })).toMatchObject({
      ok: false,
      content:
        "Error [binary_file]: logo.png looks like a binary file (it contains NUL bytes), so it cannot be shown as text. " +
        `Size 6 bytes, sha256 ${createHash("sha256").update(bytes).digest("hex")}.\n` +
        "Hint: Read text files only.",
    });
  });

  it("refuses directories with a hint to read a file inside", async () => {
    await put("src/a.ts", "x\n");
    expect((await read({ path: "src" })).content).toBe(
      "Error [is_directory]: src is a directory, not a file.\nHint: Call read_file with the path of a file inside src/.",
    );
  });

  it("reports missing files and offsets past the end", async () => {
    await put("a.txt", numbered(3));
    expect((await read({ path: "nope.ts" })).content).toBe(
      "Error [file_not_found]: nope.ts does not exist.\nHint: Paths are relative to the workspace root; take them from a file you have read, or ask the user.",
    );
    expect((await read({ path: "a.txt", offset: 9 })).content).toBe(
      "Error [invalid_range]: offset=9 is past the end of a.txt, which has 3 lines.\nHint: Call read_file with an offset between 1 and 3.",
    );
  });

  it("refuses paths outside the workspace", async () => {
    const result = await read({ path: "../etc/passwd" });
    expect(result.ok).toBe(false);
    expect(result.content).toBe(
      `Error [path_escape]: Path "../etc/passwd" resolves outside the workspace root (${workspace.root()}).\n` +
        'Hint: Remove the ".." segments that leave the workspace. Use a path relative to the workspace root, such as "src/index.ts".',
    );
  });

  it("validates offset and limit", async () => {
    expect((await read({ path: "a.txt", offset: 0 })).content).toBe(
      "Error: invalid arguments for read_file:\n- offset: Too small: expected number to be >=1\nCall read_file again with corrected arguments.",
    );
  });
});
