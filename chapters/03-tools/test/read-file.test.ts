import { mkdir } from "node:fs/promises";
import { writeTree } from "@build-agent/shared/test-helpers";
import { describe, expect, it } from "vitest";
import { runToolCall } from "../src/tools/run-tool-call.ts";
import { workspaceTools } from "../src/tools/workspace-tools.ts";
import { useTempWorkspace } from "./tool-test-workspace.ts";

const workspace = useTempWorkspace();

/** Reads through runToolCall, so the test sees what the model would read. */
function read(path: string) {
  const call = { id: "r1", function: { name: "read_file", arguments: JSON.stringify({ path }) } };
  return runToolCall(workspaceTools, call, workspace.context());
}

describe("read_file", () => {
  it("shows the path, the line count and numbered lines", async () => {
    await writeTree(workspace.root(), { "src/a.ts": "one\ntwo\n\tthree\n" });
    expect(await read("src/a.ts")).toEqual({
      tool_call_id: "r1",
      ok: true,
      content: "src/a.ts: 3 lines\n    1\tone\n    2\ttwo\n    3\t\tthree",
    });
  });

  it("counts an empty file as no lines, and a last line without a newline as a line", async () => {
    await writeTree(workspace.root(), { "empty.txt": "", "end.txt": "a\nb" });
    expect((await read("empty.txt")).content).toBe("empty.txt: 0 lines");
    expect((await read("end.txt")).content).toBe("end.txt: 2 lines\n    1\ta\n    2\tb");
  });

  it("answers a missing file with file_not_found and what to do next", async () => {
    expect(await read("src/nope.ts")).toEqual({
      tool_call_id: "r1",
      ok: false,
      code: "file_not_found",
      content:
        "Error [file_not_found]: src/nope.ts does not exist.\n" +
        "Hint: Paths are relative to the workspace root; call list_files to see which files there are.",
    });
  });

  it("answers a folder with is_directory", async () => {
    await mkdir(`${workspace.root()}/src`);
    expect((await read("src")).content).toBe(
      "Error [is_directory]: src is a directory, not a file.\n" +
        "Hint: Call list_files to see the files inside src/.",
    );
  });

  it("refuses a path outside the workspace before opening anything", async () => {
    const result = await read("../../etc/passwd");
    expect(result.code).toBe("path_escape");
    expect(result.content).toBe(
      `Error [path_escape]: Path "../../etc/passwd" resolves outside the workspace root (${workspace.root()}).\n` +
        'Hint: Remove the ".." segments that leave the workspace. Use a path relative to the workspace root, such as "src/index.ts".',
    );
  });
});
