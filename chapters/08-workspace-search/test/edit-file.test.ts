import { readFile, symlink } from "node:fs/promises";
import { join } from "node:path";
import { writeTree } from "@build-agent/shared/test-helpers";
import { describe, expect, it, vi } from "vitest";
import { editFileTool } from "../src/tools/edit-file.ts";
import { runToolCall } from "../src/tools/run-tool-call.ts";
import { workspaceTools } from "../src/tools/workspace-tools.ts";
import { useTempWorkspace } from "./tool-test-workspace.ts";

const workspace = useTempWorkspace();
// What main.ts offers the model: the tools that look, and edit_file beside them.
const tools = [...workspaceTools, editFileTool];

function edit(args: Record<string, unknown>) {
  const call = { id: "e1", function: { name: "edit_file", arguments: JSON.stringify(args) } };
  return runToolCall(tools, call, workspace.context());
}

const fileText = (path: string) => readFile(join(workspace.root(), path), "utf8");

describe("edit_file beside the tools that look", () => {
  it("is not one of workspaceTools: main.ts adds it, with a write effect", () => {
    expect(workspaceTools.map((tool) => tool.name)).not.toContain("edit_file");
    expect(editFileTool.effect).toBe("write");
  });

  it("replaces the one occurrence and leaves the rest of the file as it was", async () => {
    await writeTree(workspace.root(), { "src/a.js": "const a = 1;\nconst b = 2;\n" });
    expect(
      await edit({ path: "src/a.js", old_text: "const b = 2;", new_text: "const b = 3;" }),
    ).toEqual({ tool_call_id: "e1", ok: true, content: "Edited src/a.js: replaced 1 occurrence." });
    expect(await fileText("src/a.js")).toBe("const a = 1;\nconst b = 3;\n");
  });

  it("changes one place per call: old_text found twice is refused, and nothing changes", async () => {
    await writeTree(workspace.root(), { "a.js": "x++;\ny++;\nx++;\n" });
    expect((await edit({ path: "a.js", old_text: "x++;", new_text: "x--;" })).content).toBe(
      "Error [ambiguous_match]: old_text occurs 2 times: add lines.\nHint: Read the file again.",
    );
    expect(await fileText("a.js")).toBe("x++;\ny++;\nx++;\n");
  });

  it("answers old_text that does not occur with no_match, and changes nothing", async () => {
    await writeTree(workspace.root(), { "a.js": "let x = 1;\n" });
    expect((await edit({ path: "a.js", old_text: "let x = 2;", new_text: "" })).content).toBe(
      "Error [no_match]: old_text is not in a.js.\nHint: Read the file again.",
    );
    expect(await fileText("a.js")).toBe("let x = 1;\n");
  });

  it("cannot create a file, nor edit a folder", async () => {
    await writeTree(workspace.root(), { "src/a.js": "a\n" });
    expect((await edit({ path: "new.js", old_text: "a", new_text: "b" })).content).toBe(
      "Error [file_not_found]: new.js is not a file.\nHint: Read the file again.",
    );
    expect((await edit({ path: "src", old_text: "a", new_text: "b" })).code).toBe("file_not_found");
  });

  it("refuses a file of secrets, also through a link, unless the user allows them", async () => {
    await writeTree(workspace.root(), { ".env": "API_KEY=sk-1\n" });
    await symlink(".env", join(workspace.root(), "config.txt"));
    for (const path of [".env", "config.txt"]) {
      const result = await edit({ path, old_text: "sk-1", new_text: "sk-2" });
      expect(result.content).toBe(
        "Error [secret_file]: .env looks like a file of secrets: leave it alone.\nHint: Read the file again.",
      );
    }
    expect(await fileText(".env")).toBe("API_KEY=sk-1\n");
    vi.stubEnv("AGENT_READ_SECRETS", "1");
    try {
      expect((await edit({ path: ".env", old_text: "sk-1", new_text: "sk-2" })).ok).toBe(true);
    } finally {
      vi.unstubAllEnvs();
    }
    expect(await fileText(".env")).toBe("API_KEY=sk-2\n");
  });

  it("refuses a path outside the workspace with path_escape", async () => {
    const result = await edit({ path: "../a.js", old_text: "a", new_text: "b" });
    expect(result.code).toBe("path_escape");
  });
});
