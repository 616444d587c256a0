import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { TerminalUi } from "../src/loop/terminal-ui.ts";
import type { ApplyPatchResult } from "../src/patch/apply-patch.ts";
import type { ToolCallRequest } from "../src/tools/run-tool-call.ts";

const PATCH = "*** Begin Patch\n*** Update File: a.txt\n@@\n-old\n+new\n*** End Patch\n";
const patchCall = (id = "call_1"): ToolCallRequest => ({
  id,
  function: { name: "apply_patch", arguments: JSON.stringify({ patch: PATCH }) },
});
// apply_patch's results as the tool returns them: the text for the model, the same result as
// data (`patch`) for the harness.
const applied: ApplyPatchResult = {
  success: true,
  files_changed: 1,
  changed: [{ op: "update", path: "a.txt", sha256: "0".repeat(64), matched: ["exact"] }],
  failures: [],
  remaining_patch: "",
  repairs: [],
};
const refused: ApplyPatchResult = {
  success: false,
  files_changed: 0,
  changed: [],
  failures: [{ path: "a.txt", code: "not_read", message: "…", hint: "…" }],
  remaining_patch: PATCH,
  repairs: [],
};

function capture(): { ui: TerminalUi; out: string[] } {
  const out: string[] = [];
  return { ui: new TerminalUi({ write: (t: string) => out.push(t) }, { write: () => true }), out };
}

describe("the line per tool call", () => {
  it("shows apply_patch's own summary, whether or not it applied", () => {
    const { ui, out } = capture();
    ui.toolCall(patchCall(), {
      tool_call_id: "call_1",
      ok: true,
      content: `Patch applied: M a.txt.\n${JSON.stringify(applied)}`,
      patch: applied,
    });
    ui.toolCall(patchCall("call_2"), {
      tool_call_id: "call_2",
      ok: false,
      content: `Patch not applied, no file changed. Failed: a.txt: not_read.\n${JSON.stringify(refused)}`,
      patch: refused,
    });
    expect(out.join("")).toBe(
      "→ apply_patch  Patch applied: M a.txt.\n" +
        "→ apply_patch  Patch not applied, no file changed. Failed: a.txt: not_read.\n",
    );
  });

  it("says failed, with the first line of the error, for any other failed call", () => {
    const { ui, out } = capture();
    const read = { id: "c", function: { name: "read_file", arguments: '{"path":"nope.ts"}' } };
    ui.toolCall(read, {
      tool_call_id: "c",
      ok: false,
      content: "Error [file_not_found]: nope.ts does not exist.\nHint: list_files",
    });
    expect(out.join("")).toBe(
      "→ read_file nope.ts  failed: Error [file_not_found]: nope.ts does not exist.\n",
    );
  });

  describe("in a terminal", () => {
    const wasTTY = process.stdout.isTTY;
    const noColor = process.env.NO_COLOR;
    beforeEach(() => {
      process.stdout.isTTY = true;
      delete process.env.NO_COLOR;
    });
    afterEach(() => {
      process.stdout.isTTY = wasTTY;
      if (noColor !== undefined) process.env.NO_COLOR = noColor;
    });

    it("paints a patch that was not applied red, though apply_patch returned", () => {
      const { ui, out } = capture();
      ui.toolCall(patchCall(), {
        tool_call_id: "call_1",
        ok: false,
        content: `Patch not applied, no file changed. Failed: a.txt: not_read.\n${JSON.stringify(refused)}`,
        patch: refused,
      });
      ui.toolCall(patchCall(), {
        tool_call_id: "call_1",
        ok: true,
        content: `Patch applied: M a.txt.\n${JSON.stringify(applied)}`,
        patch: applied,
      });
      expect(out[0]).toContain("\x1b[31mPatch not applied");
      expect(out[1]).toContain("\x1b[32mPatch applied");
    });
  });
});
