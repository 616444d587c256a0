import { diffArrays } from "diff";
import { describe, expect, it, vi } from "vitest";
import { approvalReasons, createApprover, notApprovedMessage } from "../src/loop/approval.ts";
import { parsePatch } from "../src/patch/parse-patch.ts";
import type { PatchOperation } from "../src/patch/patch-types.ts";

// The real diffArrays, watched: sizing a patch for approval must not need it (it is quadratic).
vi.mock("diff", async (importOriginal) => {
  const actual = await importOriginal<typeof import("diff")>();
  return { ...actual, diffArrays: vi.fn(actual.diffArrays) };
});

const add = (path: string, lines: number): PatchOperation => ({
  kind: "add",
  path,
  contents: "x\n".repeat(lines),
  patchText: "",
});
const del = (path: string): PatchOperation => ({ kind: "delete", path, patchText: "" });
const signal = new AbortController().signal;

describe("which patches need approval", () => {
  it("lets a small patch through without asking", () => {
    expect(approvalReasons([add("a.ts", 10), add("b.ts", 10)])).toEqual([]);
  });

  it("asks for a Delete", () => {
    expect(approvalReasons([del("old.ts")])).toEqual(["deletes old.ts"]);
  });

  it("asks for a patch that adds, updates, deletes or moves onto a secret file", () => {
    const update = (path: string, moveTo?: string): PatchOperation => ({
      kind: "update",
      path,
      moveTo,
      hunks: [],
      patchText: "",
    });
    expect(approvalReasons([add(".npmrc", 1)])).toEqual(["writes a secret file (.npmrc)"]);
    expect(approvalReasons([update("deploy/id_rsa")])).toEqual([
      "writes a secret file (deploy/id_rsa)",
    ]);
    expect(approvalReasons([del(".env")])).toEqual(["deletes .env", "writes a secret file (.env)"]);
    expect(approvalReasons([update("config.txt", ".env.local")])).toEqual([
      "writes a secret file (.env.local)",
    ]);
    expect(approvalReasons([add(".env.example", 1), update("src/keys.ts")])).toEqual([]);
  });

  it("does not ask for secret files when the user set AGENT_READ_SECRETS=1", () => {
    vi.stubEnv("AGENT_READ_SECRETS", "1");
    try {
      expect(approvalReasons([add(".npmrc", 1)])).toEqual([]);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it("asks for 6 or more file operations, not for 5", () => {
    const five = ["a", "b", "c", "d", "e"].map((n) => add(`${n}.ts`, 1));
    expect(approvalReasons(five)).toEqual([]);
    expect(approvalReasons([...five, add("f.ts", 1)])).toEqual(["has 6 file operations"]);
  });

  it("asks for 400 or more changed lines, not for 399", () => {
    expect(approvalReasons([add("a.ts", 399)])).toEqual([]);
    expect(approvalReasons([add("a.ts", 400)])).toEqual(["changes 400 lines"]);
  });

  it("counts a 10,000-line rewrite from the patch's markers, without a diff", () => {
    const [rewrite] = parsePatch(
      [
        "*** Begin Patch",
        "*** Update File: big.ts",
        "@@",
        ...Array.from({ length: 10_000 }, (_, i) => `-old ${i}`),
        ...Array.from({ length: 10_000 }, (_, i) => `+new ${i}`),
        "*** End Patch",
      ].join("\n"),
    ).operations;
    expect(approvalReasons([rewrite!])).toEqual(["changes 20000 lines"]);
    expect(diffArrays).not.toHaveBeenCalled();
  });

  it("counts every line a whole-file replacement removes, from the staged plan", () => {
    const [whole] = parsePatch(
      "*** Begin Patch\n*** Update File: ./big.ts\none line\n*** End Patch\n",
    ).operations;
    const before = "x\n".repeat(500);
    const files = [{ path: "big.ts", before, after: "one line\n" }];
    expect(approvalReasons([whole!], files)).toEqual(["changes 501 lines"]);
  });
});

describe("the approver", () => {
  const reasons = ["deletes old.ts", "changes 500 lines"];

  it("asks y/N in a terminal and takes only yes for an answer", async () => {
    const questions: string[] = [];
    const approver = (answer: string) =>
      createApprover({
        yes: false,
        interactive: true,
        ask: async (question) => {
          questions.push(question);
          return answer;
        },
      });
    expect(await approver("y")(reasons, signal)).toBe("approved");
    expect(await approver(" YES ")(reasons, signal)).toBe("approved");
    expect(await approver("n")(reasons, signal)).toBe("declined");
    expect(await approver("")(reasons, signal)).toBe("declined");
    expect(questions[0]).toBe("This patch deletes old.ts and changes 500 lines. Apply it? [y/N] ");
  });

  it("approves without asking with --yes", async () => {
    const ask = () => Promise.reject(new Error("must not ask"));
    expect(await createApprover({ yes: true, interactive: false, ask })(reasons, signal)).toBe(
      "approved",
    );
  });

  it("says no when there is no terminal to ask", async () => {
    const ask = () => Promise.reject(new Error("must not ask"));
    expect(await createApprover({ yes: false, interactive: false, ask })(reasons, signal)).toBe(
      "no_terminal",
    );
  });

  it("tells the model exactly why nothing was written (pinned texts)", () => {
    expect(notApprovedMessage("declined", ["deletes old.ts"])).toEqual({
      message:
        "This patch deletes old.ts, which needs the user's approval, and the user declined it.",
      hint: "Nothing was written. Make a smaller change that needs no approval (no deleted files, no secret files, fewer than 6 file operations, fewer than 400 changed lines), or finish and ask the user how to proceed.",
    });
    expect(notApprovedMessage("no_terminal", ["writes a secret file (.npmrc)"]).message).toBe(
      "This patch writes a secret file (.npmrc), which needs the user's approval, but there is no terminal to ask, so the answer is no.",
    );
    expect(notApprovedMessage("no_terminal", ["deletes old.ts"])).toEqual({
      message:
        "This patch deletes old.ts, which needs the user's approval, but there is no terminal to ask, so the answer is no.",
      hint: "Nothing was written. Make a smaller change that needs no approval (no deleted files, no secret files, fewer than 6 file operations, fewer than 400 changed lines), or finish and tell the user to run the agent again with --yes to approve it.",
    });
  });
});
