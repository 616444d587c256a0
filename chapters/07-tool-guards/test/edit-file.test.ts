import { readFile, symlink } from "node:fs/promises";
import { join } from "node:path";
import { writeTree } from "@build-agent/shared/test-helpers";
import { afterEach, describe, expect, it, vi } from "vitest";
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
      content: "Error [no_match]: old_text is not in a.js.\nHint: Read the file again.",
    });
    expect(await fileText("a.js")).toBe("let x = 1;\n");
  });

  it("answers old_text that occurs more than once with ambiguous_match, and changes nothing", async () => {
    await writeTree(workspace.root(), { "a.js": "x++;\ny++;\nx++;\n" });
    expect((await edit({ path: "a.js", old_text: "x++;", new_text: "x--;" })).content).toBe(
      "Error [ambiguous_match]: old_text occurs 2 times: add lines.\nHint: Read the file again.",
    );
    expect(await fileText("a.js")).toBe("x++;\ny++;\nx++;\n");
  });

  it("answers a missing file with file_not_found: edit_file does not create files", async () => {
    const result = await edit({ path: "new.js", old_text: "a", new_text: "b" });
    expect(result.code).toBe("file_not_found");
    expect(result.content).toBe(
      "Error [file_not_found]: new.js is not a file.\nHint: Read the file again.",
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

  it("edits through a link that stays inside, and names the real file", async () => {
    await writeTree(workspace.root(), { "src/a.js": "let x = 1;\n" });
    await symlink("src", join(workspace.root(), "alias"));
    expect((await edit({ path: "alias/a.js", old_text: "1", new_text: "2" })).content).toBe(
      "Edited src/a.js: replaced 1 occurrence.",
    );
    expect(await fileText("src/a.js")).toBe("let x = 2;\n");
  });
});

// A failed edit still answers a question: "is old_text in the file?". Asked often enough, that
// spells out the file, so edit_file refuses a secret file before it looks inside.
describe("edit_file and secret files", () => {
  afterEach(() => vi.unstubAllEnvs());

  it("refuses .env whatever old_text is, so no answer tells what the file holds", async () => {
    await writeTree(workspace.root(), { ".env": "OPENAI_API_KEY=sk-abc\n" });
    const refusal = {
      tool_call_id: "e1",
      ok: false,
      code: "secret_file",
      content:
        "Error [secret_file]: .env looks like a file of secrets: leave it alone.\nHint: Read the file again.",
    };
    for (const guess of ["sk-a", "sk-z", "OPENAI_API_KEY=sk-abc\n"]) {
      expect(await edit({ path: ".env", old_text: guess, new_text: guess })).toEqual(refusal);
    }
    expect(await fileText(".env")).toBe("OPENAI_API_KEY=sk-abc\n");
  });

  it("refuses a secret reached through a link inside the workspace", async () => {
    await writeTree(workspace.root(), { "app/.env.local": "TOKEN=t0ps3cret\n" });
    await symlink("app/.env.local", join(workspace.root(), "settings.txt"));
    const result = await edit({ path: "settings.txt", old_text: "t0p", new_text: "x" });
    expect(result.content).toBe(
      "Error [secret_file]: app/.env.local looks like a file of secrets: leave it alone.\nHint: Read the file again.",
    );
    expect(await fileText("app/.env.local")).toBe("TOKEN=t0ps3cret\n");
  });

  it("edits a secret file when the user sets AGENT_READ_SECRETS=1", async () => {
    await writeTree(workspace.root(), { ".env": "DEBUG=0\n" });
    vi.stubEnv("AGENT_READ_SECRETS", "1");
    expect((await edit({ path: ".env", old_text: "0", new_text: "1" })).ok).toBe(true);
    expect(await fileText(".env")).toBe("DEBUG=1\n");
  });
});
