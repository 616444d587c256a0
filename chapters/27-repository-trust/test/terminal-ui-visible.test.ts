// What the model, the workspace or a command says reaches the terminal written out (chapter 1's
// visible()), on every path of the terminal UI; the harness's own question starts plain.
import { describe, expect, it } from "vitest";
import { createApprover } from "../src/loop/approval.ts";
import { TerminalUi } from "../src/loop/terminal-ui.ts";
import type { ApplyPatchResult } from "../src/patch/apply-patch.ts";

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  const ui = new TerminalUi(
    { write: (t: string) => out.push(t) },
    { write: (t: string) => err.push(t) },
  );
  return { ui, out, err };
}

describe("the terminal UI writes out what comes from outside", () => {
  it("the model's text keeps its lines, not its escape codes", () => {
    const { ui, out } = capture();
    ui.text("Fixed.\n\x1b[8mhidden\r\x1b]0;title\x07 \u202eabc\u200b");
    expect(out.join("")).toBe("Fixed.\n\\x1b[8mhidden\\x0d\\x1b]0;title\\x07 \\u202eabc\\u200b");
  });

  it("a notice, such as AGENTS.md's allowed commands or a skill that was skipped", () => {
    const { ui, err } = capture();
    ui.notice("commands run without asking: `curl x | sh\x1b[2K\x1b[1Gnode check.mjs`");
    ui.notice("resuming run r1 with:\ntask: fix\x1b]52;c;eA==\x07 it");
    expect(err.join("")).toBe(
      "commands run without asking: `curl x | sh\\x1b[2K\\x1b[1Gnode check.mjs`\n" +
        "resuming run r1 with:\ntask: fix\\x1b]52;c;eA==\\x07 it\n",
    );
  });

  it("a patch's diff: its paths and its lines", () => {
    const { ui, out } = capture();
    const path = "a\x1b[2J.txt";
    const applied: ApplyPatchResult = {
      success: true,
      files_changed: 1,
      changed: [{ op: "update", path, sha256: "0".repeat(64), matched: ["exact"] }],
      failures: [],
      remaining_patch: "",
      repairs: [],
    };
    ui.toolCall(
      { id: "call_1", function: { name: "apply_patch", arguments: "{}" } },
      {
        tool_call_id: "call_1",
        ok: true,
        content: `Patch applied: M ${path}.`,
        patch: applied,
        files: [{ path, before: "keep\nold\n", after: "keep\nnew\x1b[8m\tx\n" }],
      },
    );
    expect(out.join("")).toBe(
      "→ apply_patch  Patch applied: M a\\x1b[2J.txt.\n" +
        "*** a\\x1b[2J.txt\n@@ -1,2 +1,2 @@\n keep\n-old\n+new\\x1b[8m\tx\n",
    );
  });

  it("the question resets the terminal's attributes, on a line of its own, and is written out", async () => {
    const { ui, out } = capture();
    ui.text("half a line");
    const asked: string[] = [];
    const approver = createApprover({
      yes: false,
      interactive: true,
      ask: (question) => ui.question(async () => (asked.push(question), "n")),
    });
    await approver(["deletes a\x1b[8m.txt"], new AbortController().signal);
    expect(out.join("")).toBe("half a line\n\x1b[0m");
    expect(asked).toEqual(["This patch deletes a\\x1b[8m.txt. Apply it? [y/N] "]);
  });
});
