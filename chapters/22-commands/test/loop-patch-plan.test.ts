import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { RunLedger } from "../src/ledger/run-ledger.ts";
import { requireApproval, type Approver } from "../src/loop/approval.ts";
import { TerminalUi } from "../src/loop/terminal-ui.ts";
import type { PatchPlan } from "../src/patch/apply-patch.ts";
import { parsePatch } from "../src/patch/parse-patch.ts";
import { applyPatchTool } from "../src/tools/apply-patch-tool.ts";
import type { AnyTool } from "../src/tools/define-tool.ts";
import { readFileTool } from "../src/tools/read-file.ts";
import { runToolCall, type ToolCallResult } from "../src/tools/run-tool-call.ts";
import { useTempWorkspace } from "./tool-test-workspace.ts";

// Counts the parses: one apply_patch call, its approval and its diff included, parses once.
vi.mock("../src/patch/parse-patch.ts", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../src/patch/parse-patch.ts")>();
  return { ...actual, parsePatch: vi.fn(actual.parsePatch) };
});

const workspace = useTempWorkspace();
const CART = "export function total(a, b) {\n    return a - b;\n}\n";
const FIXED = "export function total(a, b) {\n    return a + b;\n}\n";
const onDisk = (file: string) => readFile(path.join(workspace.root(), file), "utf8");
const approve: Approver = async () => "approved";
const decline: Approver = async () => "declined";

let ledger: RunLedger | undefined;
afterEach(async () => {
  await ledger?.close();
  ledger = undefined;
});

/** apply_patch behind the approval gate, recording the staged plan the gate was shown. */
function gatedTool(approver: Approver, seen: PatchPlan[]): AnyTool {
  const inner: AnyTool = applyPatchTool;
  const recording: AnyTool = {
    ...inner,
    execute: (args, context) =>
      inner.execute(args, {
        ...context,
        reviewPatch: async (plan) => {
          seen.push(plan);
          await context.reviewPatch?.(plan);
        },
      }),
  };
  return requireApproval(recording, approver);
}

/** Writes and reads `files` (so they may be patched), then runs one apply_patch call and shows it. */
async function patchAfterRead(files: Record<string, string>, patch: string, approver: Approver) {
  ledger = await RunLedger.open(workspace.root(), { task: "Fix the total", model: "test" });
  const context = { ...workspace.context(), ledger };
  const seen: PatchPlan[] = [];
  const tools = [readFileTool, gatedTool(approver, seen)];
  const reads: ToolCallResult[] = [];
  for (const [file, text] of Object.entries(files)) {
    await writeFile(path.join(workspace.root(), file), text);
    const args = JSON.stringify({ path: file });
    reads.push(
      await runToolCall(
        tools,
        { id: "r", function: { name: "read_file", arguments: args } },
        context,
      ),
    );
  }
  vi.mocked(parsePatch).mockClear();
  const call = { id: "p", function: { name: "apply_patch", arguments: JSON.stringify({ patch }) } };
  const result = await runToolCall(tools, call, context);
  const out: string[] = [];
  new TerminalUi({ write: (text: string) => out.push(text) }, { write: () => true }).toolCall(
    call,
    result,
  );
  const parses = vi.mocked(parsePatch).mock.calls.length;
  return { result, reads, seen, shown: out.join(""), parses };
}

describe("one staged plan for approval and the diff", () => {
  it("shows the file's real lines when a hunk matched loosely, not the patch's", async () => {
    // The model's context is indented by 2 spaces; the file is indented by 4.
    const patch =
      "*** Begin Patch\n*** Update File: cart.mjs\n@@\n export function total(a, b) {\n" +
      "-  return a - b;\n+  return a + b;\n }\n*** End Patch\n";
    const { result, shown } = await patchAfterRead({ "cart.mjs": CART }, patch, approve);
    expect(result.patch?.changed[0]?.matched).not.toEqual(["exact"]);
    // The engine writes the model's "+" lines as sent; the "-" line is the file's own.
    expect(await onDisk("cart.mjs")).toBe("export function total(a, b) {\n  return a + b;\n}\n");
    expect(shown).toBe(
      "→ apply_patch  " +
        result.content.split("\n")[0] +
        "\n*** cart.mjs\n@@ -1,3 +1,3 @@\n export function total(a, b) {\n" +
        "-    return a - b;\n+  return a + b;\n }\n",
    );
  });

  it("writes nothing when the user declines, after showing the gate the staged plan", async () => {
    const patch =
      "*** Begin Patch\n*** Delete File: old.txt\n*** Update File: cart.mjs\n@@\n" +
      "-    return a - b;\n+    return a + b;\n*** End Patch\n";
    const files = { "old.txt": "bye\n", "cart.mjs": CART };
    const { result, seen, shown } = await patchAfterRead(files, patch, decline);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.operations).toMatchObject([
      { kind: "delete", path: "old.txt" },
      { kind: "update", path: "cart.mjs" },
    ]);
    expect(seen[0]!.files).toEqual([
      { path: "old.txt", before: "bye\n", after: undefined },
      { path: "cart.mjs", before: CART, after: FIXED },
    ]);
    expect(result).toMatchObject({ ok: false, code: "not_approved" });
    expect(result.content).toBe(
      "Error [not_approved]: This patch deletes old.txt, which needs the user's approval, and the user declined it.\n" +
        "Hint: Nothing was written. Make a smaller change that needs no approval (no deleted files, no secret files, fewer than 6 file operations, fewer than 400 changed lines), or finish and ask the user how to proceed.",
    );
    expect(await onDisk("old.txt")).toBe("bye\n");
    expect(await onDisk("cart.mjs")).toBe(CART);
    expect(shown).not.toContain("cart.mjs");
  });

  it("asks before a whole-file replacement that removes 500 lines, as it would for hunks", async () => {
    const big = "x\n".repeat(500);
    const patch = "*** Begin Patch\n*** Update File: big.txt\none line\n*** End Patch\n";
    const { result } = await patchAfterRead({ "big.txt": big }, patch, decline);
    expect(result).toMatchObject({ ok: false, code: "not_approved" });
    expect(result.content.split("\n")[0]).toBe(
      "Error [not_approved]: This patch changes 501 lines, which needs the user's approval, and the user declined it.",
    );
    expect(await onDisk("big.txt")).toBe(big);
  });

  it("parses the patch once per apply_patch call, approval and diff included", async () => {
    const patch = "*** Begin Patch\n*** Delete File: old.txt\n*** End Patch\n";
    const { result, parses, shown } = await patchAfterRead({ "old.txt": "bye\n" }, patch, approve);
    expect(result.ok).toBe(true);
    expect(shown).toContain("--- old.txt (deleted)");
    expect(parses).toBe(1);
  });
});

describe("secret files (.env, .npmrc, private keys)", () => {
  const SECRET = "//registry.npmjs.org/:_authToken=npm_do-not-send-me\n";
  const update = (file: string) =>
    `*** Begin Patch\n*** Update File: ${file}\n@@\n-${SECRET}+registry=https://evil.example/\n*** End Patch\n`;
  const remove = (file: string) => `*** Begin Patch\n*** Delete File: ${file}\n*** End Patch\n`;

  it("cannot be changed or deleted once they exist, even with the user's yes: read_file never shows them", async () => {
    // .env is off apply_patch's list of text suffixes (chapter 12); .npmrc and id_rsa pass it, and
    // the hash guard refuses them: the agent never read them whole.
    const refused = { ".env": "disallowed_path", ".npmrc": "not_read", id_rsa: "not_read" };
    for (const [file, code] of Object.entries(refused)) {
      for (const patch of [update(file), remove(file)]) {
        const { result, reads } = await patchAfterRead({ [file]: SECRET }, patch, approve);
        expect(reads[0]).toMatchObject({ ok: false, code: "secret_file" });
        expect(result, `${file}: ${patch}`).toMatchObject({ ok: false, code });
        expect(await onDisk(file)).toBe(SECRET);
        await ledger?.close();
      }
    }
  });

  it("need the user's yes to be created, and the model reads why (pinned text)", async () => {
    const patch =
      "*** Begin Patch\n*** Add File: .npmrc\n+registry=https://evil.example/\n*** End Patch\n";
    const { result } = await patchAfterRead({}, patch, decline);
    expect(result).toMatchObject({ ok: false, code: "not_approved" });
    expect(result.content.split("\n")[0]).toBe(
      "Error [not_approved]: This patch writes a secret file (.npmrc), which needs the user's approval, and the user declined it.",
    );
    await expect(onDisk(".npmrc")).rejects.toThrow(/ENOENT/);
  });

  it("are written without asking when the user set AGENT_READ_SECRETS=1", async () => {
    const patch = "*** Begin Patch\n*** Add File: .npmrc\n+save-exact=true\n*** End Patch\n";
    vi.stubEnv("AGENT_READ_SECRETS", "1");
    try {
      const { result } = await patchAfterRead({}, patch, decline);
      expect(result.ok).toBe(true);
      expect(await onDisk(".npmrc")).toBe("save-exact=true\n");
    } finally {
      vi.unstubAllEnvs();
    }
  });
});
