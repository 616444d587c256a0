import { describe, expect, it } from "vitest";
import { readPatchToolOutput } from "../src/tools/apply-patch-tool.ts";
import { judgeOutcome } from "../src/tools/tool-outcome.ts";

const result = (content: string, ok = true) => ({ tool_call_id: "c", content, ok });
const failedJson = JSON.stringify({
  success: false,
  files_changed: 0,
  changed: [],
  failures: [{ path: "a.ts", code: "file_changed", message: "…", hint: "…" }],
});

describe("judgeOutcome", () => {
  it("reads the error code of a failed tool call", () => {
    expect(judgeOutcome(result("src/a.ts: full read, ..."))).toEqual({ outcome: "ok" });
    expect(
      judgeOutcome(result("Error [file_not_found]: nope.ts does not exist.\nHint: ...", false)),
    ).toEqual({ outcome: "error", code: "file_not_found" });
    expect(
      judgeOutcome(result("Error: invalid arguments for note:\n- request: ...", false)),
    ).toEqual({ outcome: "error", code: undefined });
  });

  it("counts a patch that did not (fully) apply as an error, though the tool returned", () => {
    expect(
      judgeOutcome(
        result(`Patch not applied, no file changed. Failed: a.ts: file_changed.\n${failedJson}`),
      ),
    ).toEqual({ outcome: "error", code: "file_changed" });
    expect(
      judgeOutcome(
        result(`Patch partly applied: M b.ts changed; failed: a.ts: file_changed.\n${failedJson}`),
      ),
    ).toEqual({ outcome: "error", code: "file_changed" });
    expect(judgeOutcome(result('Patch applied: M a.ts.\n{"success":true}'))).toEqual({
      outcome: "ok",
    });
  });
});

describe("readPatchToolOutput", () => {
  it("reads apply_patch's JSON result back from its output, and nothing else", () => {
    expect(readPatchToolOutput(`Patch not applied, no file changed.\n${failedJson}`)).toEqual(
      JSON.parse(failedJson),
    );
    // Text that merely mentions a patch, or is not followed by the JSON, is not a result.
    expect(readPatchToolOutput(`Patching later.\n${failedJson}`)).toBeUndefined();
    expect(readPatchToolOutput("Patch applied: M a.ts.\nnot json")).toBeUndefined();
    expect(readPatchToolOutput('1  {"success": false}')).toBeUndefined();
  });
});
