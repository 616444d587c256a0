import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { writeTree } from "@build-agent/shared/test-helpers";
import { describe, expect, it } from "vitest";
import { runToolCall } from "../src/tools/run-tool-call.ts";
import { workspaceTools } from "../src/tools/workspace-tools.ts";
import { useTempWorkspace } from "./tool-test-workspace.ts";

const workspace = useTempWorkspace();

function edit(args: Record<string, unknown>) {
  const call = { id: "e1", function: { name: "edit_file", arguments: JSON.stringify(args) } };
  return runToolCall(workspaceTools, call, workspace.context());
}

const fileText = (path: string) => readFile(join(workspace.root(), path), "utf8");

describe("edit_file", () => {
  it("replaces the one occurrence and leaves the rest of the file as it was", async () => {
    await writeTree(workspace.root(), { "src/a.js": "const a = 1;\nconst b = 2;\n" });
    expect(
      await edit({ path: "src/a.js", old_text: "const b = 2;", new_text: "const b = 3;" }),
    ).toEqual({ tool_call_id: "e1", ok: true, content: "Edited src/a.js: replaced 1 occurrence." });
    expect(await fileText("src/a.js")).toBe("const a = 1;\nconst b = 3;\n");
  });

  it('writes "$&", "$1" and "$$" in new_text literally, not as replacement patterns', async () => {
    await writeTree(workspace.root(), { "price.js": "const price = PRICE;\n" });
    await edit({ path: "price.js", old_text: "PRICE", new_text: '"$&" + "$1" + "$$"' });
    expect(await fileText("price.js")).toBe('const price = "$&" + "$1" + "$$";\n');
  });

  it("answers old_text that does not occur with no_match, and changes nothing", async () => {
    await writeTree(workspace.root(), { "a.js": "let x = 1;\n" });
    expect(await edit({ path: "a.js", old_text: "let x = 2;", new_text: "" })).toEqual({
      tool_call_id: "e1",
      ok: false,
      code: "no_match",
      content:
        "Error [no_match]: old_text does not occur in a.js.\n" +
        "Hint: Call read_file to see the file as it is now, then copy old_text from it exactly.",
    });
    expect(await fileText("a.js")).toBe("let x = 1;\n");
  });

  it("answers old_text that occurs more than once with ambiguous_match, and changes nothing", async () => {
    await writeTree(workspace.root(), { "a.js": "x++;\ny++;\nx++;\n" });
    expect((await edit({ path: "a.js", old_text: "x++;", new_text: "x--;" })).content).toBe(
      "Error [ambiguous_match]: old_text occurs 2 times in a.js; it must occur exactly once.\n" +
        "Hint: Add lines around it to old_text until it is unique.",
    );
    expect(await fileText("a.js")).toBe("x++;\ny++;\nx++;\n");
  });

  it("answers a missing file with file_not_found: edit_file does not create files", async () => {
    const result = await edit({ path: "new.js", old_text: "a", new_text: "b" });
    expect(result.code).toBe("file_not_found");
    expect(result.content).toBe(
      "Error [file_not_found]: new.js does not exist.\n" +
        "Hint: Paths are relative to the workspace root; call list_files to see which files there are.",
    );
  });

  it("refuses an empty old_text through the schema", async () => {
    await writeTree(workspace.root(), { "a.js": "a\n" });
    expect((await edit({ path: "a.js", old_text: "", new_text: "b" })).content).toBe(
      "Error: invalid arguments for edit_file:\n" +
        "- old_text: Too small: expected string to have >=1 characters\n" +
        "Call edit_file again with corrected arguments.",
    );
  });

  it("refuses a path outside the workspace with path_escape", async () => {
    const result = await edit({ path: "../a.js", old_text: "a", new_text: "b" });
    expect(result.code).toBe("path_escape");
  });
});
