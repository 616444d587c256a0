import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { RunLedger } from "../src/ledger/run-ledger.ts";
import { applyPatchTool } from "../src/tools/apply-patch-tool.ts";
import { ReadCoverage } from "../src/tools/read-coverage.ts";
import { readFileTool } from "../src/tools/read-file.ts";
import { runToolCall } from "../src/tools/run-tool-call.ts";
import { sha256 } from "../src/fs/file-hash.ts";
import { useTempWorkspace } from "./tool-test-workspace.ts";

// read_file shows at most 2,000 lines or 100 KB per call: a bigger file can only be read in
// parts, and the parts must add up to a full read, or the agent could never patch it.
const workspace = useTempWorkspace();
const numbered = (count: number) =>
  Array.from({ length: count }, (_, i) => `line ${i + 1}`).join("\n") + "\n";
const BIG = numbered(5400);
const put = (relPath: string, text: string) =>
  writeFile(path.join(workspace.root(), relPath), text);
const FIX =
  "*** Begin Patch\n*** Update File: big.txt\n@@\n line 4999\n-line 5000\n+LINE 5000\n*** End Patch\n";

const opened: RunLedger[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((ledger) => ledger.close()));
});

async function session() {
  const ledger = await RunLedger.open(workspace.root(), { task: "t", model: "test" });
  opened.push(ledger);
  const context = { ...workspace.context(), ledger };
  const call = (name: string, args: object) =>
    runToolCall(
      [readFileTool, applyPatchTool],
      { id: "c", function: { name, arguments: JSON.stringify(args) } },
      context,
    );
  return { ledger, call, read: (args: object) => call("read_file", { path: "big.txt", ...args }) };
}

describe("reads of one version of a file add up", () => {
  it("lets the agent patch a 5,400-line file it read in three parts", async () => {
    await put("big.txt", BIG);
    const { ledger, call, read } = await session();

    const first = await read({});
    expect(first.content.split("\n").at(-1)).toBe(
      "... lines of big.txt not read yet: 2001-5400. apply_patch changes a file only once every line of it was read; reads add up while the file does not change",
    );
    expect((await call("apply_patch", { patch: FIX })).code).toBe("not_read");

    await read({ offset: 4001 });
    expect((await read({ offset: 2001, limit: 2000 })).content.split("\n").at(-1)).toBe(
      "... with your earlier reads, every line of big.txt as it is now has been read: apply_patch may change it",
    );
    expect(ledger.lastKnownHash("big.txt")).toBe(sha256(BIG));
    expect((await call("apply_patch", { patch: FIX })).ok).toBe(true);
    expect(await readFile(path.join(workspace.root(), "big.txt"), "utf8")).toContain(
      "line 4999\nLINE 5000\nline 5001\n",
    );
    expect(ledger.events().filter((e) => e.type === "file_read")).toMatchObject([
      { full: false },
      { full: false },
      { full: true },
    ]);
  });

  it("starts over when the file changes between the reads", async () => {
    await put("big.txt", BIG);
    const { ledger, read } = await session();
    await read({});
    await put("big.txt", BIG.replace("line 3000\n", "line three thousand\n"));
    expect((await read({ offset: 2001 })).content.split("\n").at(-1)).toBe(
      "... lines of big.txt not read yet: 1-2000, 4001-5400. apply_patch changes a file only once every line of it was read; reads add up while the file does not change",
    );
    expect(ledger.lastKnownHash("big.txt")).toBeUndefined();
  });

  it("does not count a long line that was cut as read", async () => {
    await put("wide.txt", `a\n${"x".repeat(3000)}\nc\n`);
    const { ledger, call } = await session();
    const result = await call("read_file", { path: "wide.txt" });
    expect(result.content.split("\n").at(-1)).toBe(
      "... lines of wide.txt not read yet: 2. apply_patch changes a file only once every line of it was read; reads add up while the file does not change",
    );
    expect(ledger.lastKnownHash("wide.txt")).toBeUndefined();
  });

  it("keeps the still unread lines as merged ranges, per path and hash", () => {
    const coverage = new ReadCoverage();
    const lines = (total: number, ...shown: [number, number][]) => ({ total, shown });
    expect(coverage.add("a", "h1", lines(100, [10, 20], [40, 50]))).toEqual([
      [1, 9],
      [21, 39],
      [51, 100],
    ]);
    expect(coverage.add("a", "h1", lines(100, [15, 45]))).toEqual([
      [1, 9],
      [51, 100],
    ]);
    expect(coverage.add("b", "h1", lines(5, [1, 5]))).toEqual([]);
    expect(coverage.add("a", "h2", lines(100, [1, 9]))).toEqual([[10, 100]]);
    expect(coverage.add("a", "h2", lines(100, [10, 100]))).toEqual([]);
  });
});
