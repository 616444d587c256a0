import { describe, expect, it } from "vitest";
import { parsePatch } from "../src/patch/parse-patch.ts";
import { patchOf, refusal } from "./patch-engine-helpers.ts";

describe("parsePatch: grammar", () => {
  it("reads Add, Delete and Update with anchors", () => {
    const parsed = parsePatch(
      patchOf(
        "*** Begin Patch",
        "*** Add File: src/new.ts",
        "+export const a = 1;",
        "+",
        "*** Delete File: src/old.ts",
        "*** Update File: src/app.ts",
        "@@ class App {",
        " keep",
        "-old",
        "+new",
        "@@",
        "-last",
        "+final",
        "*** End Patch",
      ),
    );
    expect(parsed.operations).toEqual([
      { kind: "add", path: "src/new.ts", contents: "export const a = 1;\n\n" },
      { kind: "delete", path: "src/old.ts" },
      {
        kind: "update",
        path: "src/app.ts",
        hunks: [
          { anchors: ["class App {"], oldLines: ["keep", "old"], newLines: ["keep", "new"] },
          { anchors: [], oldLines: ["last"], newLines: ["final"] },
        ],
      },
    ]);
  });

  it("lets the first hunk omit '@@' and reads an empty line as an empty context line", () => {
    const parsed = parsePatch(
      patchOf("*** Begin Patch", "*** Update File: a.txt", " a", "", "-b", "+c", "*** End Patch"),
    );
    const op = parsed.operations[0];
    expect(op?.kind === "update" && op.hunks).toEqual([
      { anchors: [], oldLines: ["a", "", "b"], newLines: ["a", "", "c"] },
    ]);
  });

  it("collects several '@@' lines in a row as anchors that narrow step by step", () => {
    const parsed = parsePatch(
      patchOf(
        "*** Begin Patch",
        "*** Update File: a.ts",
        "@@ class B {",
        "@@   render() {",
        "-    return 1;",
        "+    return 2;",
        "*** End Patch",
      ),
    );
    const op = parsed.operations[0];
    expect(op?.kind === "update" && op.hunks[0]?.anchors).toEqual(["class B {", "render() {"]);
  });

  it("keeps header-like lines inside an update as hunk lines", () => {
    const parsed = parsePatch(
      patchOf(
        "*** Begin Patch",
        "*** Update File: docs/format.md",
        " *** Update File: path/file.ts",
        "-*** Delete File: old.ts",
        "+*** Delete File: new.ts",
        "*** End Patch",
      ),
    );
    expect(parsed.operations).toHaveLength(1);
    const op = parsed.operations[0];
    expect(op?.kind === "update" && op.hunks[0]?.oldLines).toEqual([
      "*** Update File: path/file.ts",
      "*** Delete File: old.ts",
    ]);
  });

  it("accepts an empty Add File (an empty new file)", () => {
    const parsed = parsePatch(
      patchOf("*** Begin Patch", "*** Add File: empty.txt", "*** End Patch"),
    );
    expect(parsed.operations[0]).toMatchObject({ kind: "add", contents: "" });
  });
});

describe("parsePatch: refusals", () => {
  const formatHint =
    "Send the patch in this form: '*** Begin Patch' alone on the first line, then sections such as " +
    "'*** Update File: path' followed by '@@' hunks of ' ' unchanged, '-' removed and '+' added lines, " +
    "then '*** End Patch' alone on the last line.";

  it("refuses an empty patch text", () => {
    const error = refusal(() => parsePatch("  \n\n"));
    expect([error.code, error.message, error.hint]).toEqual([
      "invalid_patch",
      "The patch is empty.",
      formatHint,
    ]);
  });

  it("refuses a patch without '*** Begin Patch' and quotes its first line", () => {
    const error = refusal(() =>
      parsePatch(patchOf("*** Update File: a.txt", "-a", "*** End Patch")),
    );
    expect(error.message).toBe(
      "The patch must start with '*** Begin Patch', but its first line is '*** Update File: a.txt'.",
    );
    expect(error.hint).toBe(formatHint);
  });

  it("refuses a patch without '*** End Patch'", () => {
    const error = refusal(() =>
      parsePatch(patchOf("*** Begin Patch", "*** Update File: a", "-a", "+b")),
    );
    expect(error.message).toBe(
      "The patch has no '*** End Patch' line; its last line (line 4) is '+b'.",
    );
    expect(error.hint).toBe(
      "Add a line '*** End Patch' after the last line of the patch; if the patch was cut off, send it again in full.",
    );
  });

  it("refuses text after '*** End Patch'", () => {
    const error = refusal(() =>
      parsePatch(patchOf("*** Begin Patch", "*** Delete File: a", "*** End Patch", "Done!", "Bye")),
    );
    expect(error.message).toBe(
      "The patch must end with '*** End Patch', but lines 4 to 5 follow it (line 3).",
    );
    expect(error.hint).toBe(
      "Remove the lines after '*** End Patch', or move it to the end if those lines belong to the patch.",
    );
  });

  it("refuses an unknown header as Codex does (scenario 013)", () => {
    const error = refusal(() =>
      parsePatch(patchOf("*** Begin Patch", "*** Frobnicate File: foo", "*** End Patch")),
    );
    expect(error.code).toBe("invalid_patch");
    expect(error.message).toBe(
      "Invalid patch hunk on line 2: '*** Frobnicate File: foo' is not a valid hunk header. " +
        "Valid hunk headers: '*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'",
    );
    expect(error.hint).toBe(
      "Start each file's section with one of the valid headers, spelled exactly as shown.",
    );
  });

  it("refuses an empty Update as Codex does (scenario 008)", () => {
    const error = refusal(() =>
      parsePatch(patchOf("*** Begin Patch", "*** Update File: foo.txt", "*** End Patch")),
    );
    expect(error.message).toBe(
      "Invalid patch hunk on line 2: Update file hunk for path 'foo.txt' is empty",
    );
    expect(error.hint).toBe(
      "Add the change after '*** Update File: foo.txt': an '@@' line, then ' ' unchanged, '-' removed " +
        "and '+' added lines. To only rename the file, use '*** Move to: {path}' with a hunk.",
    );
  });

  it.each([["@@"], ["@@", "@@ render() {"]])(
    "refuses an Update of only bare or anchored '@@' lines (case %#), as Codex does",
    (...hunk) => {
      const error = refusal(() =>
        parsePatch(patchOf("*** Begin Patch", "*** Update File: f.txt", ...hunk, "*** End Patch")),
      );
      expect(error.message).toBe(
        "Invalid patch hunk on line 2: Update file hunk for path 'f.txt' is empty",
      );
    },
  );

  it("refuses a patch with no operations (scenario 005)", () => {
    const error = refusal(() => parsePatch(patchOf("*** Begin Patch", "*** End Patch")));
    expect(error.message).toBe(
      "The patch contains no file operations between '*** Begin Patch' and '*** End Patch'.",
    );
    expect(error.hint).toBe(
      "Add at least one '*** Add File: path', '*** Delete File: path' or '*** Update File: path' " +
        "section, or do not call apply_patch when nothing needs to change.",
    );
  });

  it("refuses an Add File body that mixes '+' lines with unprefixed lines", () => {
    const error = refusal(() =>
      parsePatch(patchOf("*** Begin Patch", "*** Add File: a.txt", "+one", "two", "*** End Patch")),
    );
    expect(error.message).toBe(
      "Line 4: 'two' in the Add File section for 'a.txt' does not start with '+'.",
    );
    expect(error.hint).toBe(
      "Start every line of a new file with '+' (an empty line is a lone '+'), or start the next " +
        "section with '*** Add File:', '*** Delete File:' or '*** Update File:'.",
    );
  });

  it("refuses an unprefixed line inside a hunk", () => {
    const error = refusal(() =>
      parsePatch(
        patchOf("*** Begin Patch", "*** Update File: a.txt", "@@", "-a", "b", "*** End Patch"),
      ),
    );
    expect(error.message).toBe("Line 5: unexpected line 'b' in the update of 'a.txt'.");
    expect(error.hint).toBe(
      "Start every hunk line with ' ' (unchanged), '-' (removed) or '+' (added), and every hunk " +
        "with '@@'; an unchanged empty line is a single space.",
    );
  });
});
