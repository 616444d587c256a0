import { describe, expect, it } from "vitest";
import { planView } from "../src/loop/terminal-ui.ts";

describe("planView", () => {
  it("writes out the escape codes in the model's steps", () => {
    const view = planView([
      { step: "read\x1b[8m the code", status: "done" },
      { step: "fix\x1b[2J\x1b[H it\u202e", status: "in_progress" },
    ]);
    expect(view).toBe(
      "→ update_plan  1 of 2 done\n  [x] read\\x1b[8m the code\n  [>] fix\\x1b[2J\\x1b[H it\\u202e",
    );
  });
});
