import { describe, expect, it } from "vitest";
import { parsePatch } from "../src/patch/parse-patch.ts";
import { patchOf, refusal } from "./patch-engine-helpers.ts";

describe("parsePatch: grammar", () => {
  it("reads Add, Delete and Update with Move, anchors and End of File", () => {
    const parsed = parsePatch(
      patchOf(
        "*** Begin Patch",
        "*** Add File: src/new.ts",
        "+export const a = 1;",
        "+",
        "*** Delete File: src/old.ts",
        "*** Update File: src/app.ts",
        "*** Move to: src/main.ts",
        "@@ class App {",
        " keep",
        "-old",
        "+new",
        "@@",
        "-last",
        "+final",
        "*** End of File",
        "*** End Patch",
      ),
    );
    expect(parsed.repairs).toEqual([]);
    expect(parsed.operations).toEqual([
      {
        kind: "add",
        path: "src/new.ts",
        contents: "export const a = 1;\n\n",
        patchText: "*** Add File: src/new.ts\n+export const a = 1;\n+\n",
      },
      { kind: "delete", path: "src/old.ts", patchText: "*** Delete File: src/old.ts\n" },
      {
        kind: "update",
        path: "src/app.ts",
        moveTo: "src/main.ts",
        hunks: [
          {
            anchors: ["class App {"],
            oldLines: ["keep", "old"],
            newLines: ["keep", "new"],
            endOfFile: false,
            patchText: "@@ class App {\n keep\n-old\n+new\n",
          },
          {
            anchors: [],
            oldLines: ["last"],
            newLines: ["final"],
            endOfFile: true,
            patchText: "@@\n-last\n+final\n*** End of File\n",
          },
        ],
        patchText:
          "*** Update File: src/app.ts\n*** Move to: src/main.ts\n@@ class App {\n keep\n-old\n+new\n" +
          "@@\n-last\n+final\n*** End of File\n",
      },
    ]);
  });

  it("lets the first hunk omit '@@' and reads an empty line as an empty context line", () => {
    const parsed = parsePatch(
      patchOf("*** Begin Patch", "*** Update File: a.txt", " a", "", "-b", "+c", "*** End Patch"),
    );
    const op = parsed.operations[0];
    expect(op?.kind === "update" && op.hunks).toEqual([
      {
        anchors: [],
        oldLines: ["a", "", "b"],
        newLines: ["a", "", "c"],
        endOfFile: false,
        patchText: " a\n\n-b\n+c\n",
      },
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

describe("parsePatch: tolerance", () => {
  const plain = patchOf("*** Begin Patch", "*** Delete File: a.txt", "*** End Patch");
  const expected = [{ kind: "delete", path: "a.txt", patchText: "*** Delete File: a.txt\n" }];

  it.each(["```", "```patch", "```diff", "```text"])("removes a %s fence", (fence) => {
    const parsed = parsePatch(`${fence}\n${plain}\`\`\`\n`);
    expect(parsed.operations).toEqual(expected);
    expect(parsed.repairs).toEqual([
      `The patch was wrapped in a '${fence}' code fence; the fence was removed.`,
    ]);
  });

  it.each(["<<EOF", "<<'EOF'", "apply_patch <<'EOF'", 'apply_patch <<"PATCH"'])(
    "removes a %s heredoc",
    (opening) => {
      const tag = opening.includes("PATCH") ? "PATCH" : "EOF";
      const parsed = parsePatch(`${opening}\n${plain}${tag}\n`);
      expect(parsed.operations).toEqual(expected);
      expect(parsed.repairs).toEqual([
        `The patch was wrapped in a heredoc ('${opening}'); the wrapper was removed.`,
      ]);
    },
  );

  it("removes a heredoc inside a fence, and counts lines as sent", () => {
    const error = refusal(() =>
      parsePatch(
        "```bash\napply_patch <<'EOF'\n*** Begin Patch\n*** Frob: x\n*** End Patch\nEOF\n```\n",
      ),
    );
    expect(error.message).toMatch(/^Invalid patch hunk on line 4: '\*\*\* Frob: x'/);
  });

  it("reads CRLF line breaks as LF", () => {
    const parsed = parsePatch(plain.replaceAll("\n", "\r\n"));
    expect(parsed.operations).toEqual(expected);
    expect(parsed.repairs).toEqual(["The patch used CRLF line breaks; they were read as LF."]);
  });

  it("ignores spaces around markers and headers", () => {
    const parsed = parsePatch(
      patchOf(" *** Begin Patch", "  *** Delete File: a.txt ", "*** End Patch  "),
    );
    expect(parsed.operations).toEqual([
      { kind: "delete", path: "a.txt", patchText: "  *** Delete File: a.txt \n" },
    ]);
    expect(parsed.repairs).toEqual([
      "Line 1: spaces around '*** Begin Patch' were ignored.",
      "Line 2: spaces around '*** Delete File: a.txt' were ignored.",
      "Line 3: spaces around '*** End Patch' were ignored.",
    ]);
  });

  it("accepts headers without the leading '*** '", () => {
    const parsed = parsePatch(
      patchOf(
        "*** Begin Patch",
        "Add File: n.txt",
        "+n",
        "Delete File: d.txt",
        "Update File: u.txt",
        "-u",
        "+v",
        "*** End Patch",
      ),
    );
    expect(parsed.operations.map((op) => `${op.kind} ${op.path}`)).toEqual([
      "add n.txt",
      "delete d.txt",
      "update u.txt",
    ]);
    expect(parsed.repairs).toEqual([
      "Line 2: 'Add File: n.txt' lacked the leading '*** '; it was read as '*** Add File: n.txt'.",
      "Line 4: 'Delete File: d.txt' lacked the leading '*** '; it was read as '*** Delete File: d.txt'.",
      "Line 5: 'Update File: u.txt' lacked the leading '*** '; it was read as '*** Update File: u.txt'.",
    ]);
  });

  it("takes an Add File body without '+' prefixes as the whole file", () => {
    const parsed = parsePatch(
      patchOf("*** Begin Patch", "*** Add File: a.py", "def f():", "    return 1", "*** End Patch"),
    );
    expect(parsed.operations[0]).toMatchObject({ contents: "def f():\n    return 1\n" });
    expect(parsed.repairs).toEqual([
      "The Add File section for 'a.py' had no '+' prefixes; its lines were taken as the file's contents.",
    ]);
  });

  it("takes an Update File body without hunk lines as a whole-file replacement", () => {
    const parsed = parsePatch(
      patchOf("*** Begin Patch", "*** Update File: a.txt", "first", "", "third", "*** End Patch"),
    );
    expect(parsed.operations[0]).toMatchObject({
      kind: "update",
      hunks: [],
      wholeFile: "first\n\nthird\n",
    });
    expect(parsed.repairs).toEqual([
      "The Update File section for 'a.txt' had no hunk lines (' ', '-', '+' or '@@'); its body was taken as the whole new file.",
    ]);
  });

  it("drops the line numbers of a unified-diff '@@ -1,2 +1,2 @@' line and keeps its text as anchor", () => {
    const parsed = parsePatch(
      patchOf(
        "*** Begin Patch",
        "*** Update File: a.ts",
        "@@ -10,2 +10,2 @@ function f() {",
        "-a",
        "+b",
        "*** End Patch",
      ),
    );
    const op = parsed.operations[0];
    expect(op?.kind === "update" && op.hunks[0]?.anchors).toEqual(["function f() {"]);
    expect(parsed.repairs).toEqual([
      "Line 3: the line numbers in '@@ -10,2 +10,2 @@ function f() {' were ignored; hunks are found by their lines.",
    ]);
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

  it("names the lines to remove when text precedes '*** Begin Patch'", () => {
    const error = refusal(() =>
      parsePatch(
        patchOf("Here is the patch:", "", "*** Begin Patch", "*** Delete File: a", "*** End Patch"),
      ),
    );
    expect(error.message).toBe(
      "The patch must start with '*** Begin Patch', but its first line is 'Here is the patch:'.",
    );
    expect(error.hint).toBe(
      "Remove the 2 lines before '*** Begin Patch' (line 3), so that the patch starts with it.",
    );
  });

  it("names the text before and after a fenced patch that follows an explanation", () => {
    const error = refusal(() =>
      parsePatch(
        patchOf(
          "Here is the patch:",
          "```patch",
          "*** Begin Patch",
          "*** Delete File: a",
          "*** End Patch",
          "```",
          "It deletes a.",
        ),
      ),
    );
    expect([error.code, error.message, error.hint]).toEqual([
      "invalid_patch",
      "The patch must start with '*** Begin Patch', but its first line is 'Here is the patch:'.",
      "Remove the 2 lines before '*** Begin Patch' (line 3) and the 2 lines after " +
        "'*** End Patch' (line 5), so that the patch starts and ends with them.",
    ]);
  });

  it("detects a one-line patch inside a code fence", () => {
    const error = refusal(() =>
      parsePatch("```\n*** Begin Patch *** Delete File: a.txt *** End Patch\n```\n"),
    );
    expect([error.code, error.message, error.hint]).toEqual([
      "invalid_patch",
      "The whole patch is on one line (line 2): '*** Begin Patch' and '*** End Patch' must each be on a line of their own.",
      "Put each marker and each patch line on its own line, separated by real line breaks: " +
        "'*** Begin Patch' alone on the first line, then each header and hunk line, then " +
        "'*** End Patch' alone on the last line.",
    ]);
  });

  it("recognises a unified diff", () => {
    const error = refusal(() =>
      parsePatch(patchOf("--- a/x.ts", "+++ b/x.ts", "@@ -1 +1 @@", "-a", "+b")),
    );
    expect(error.message).toBe(
      "The patch must start with '*** Begin Patch', but its first line is '--- a/x.ts'. " +
        "This looks like a unified diff, which apply_patch does not read.",
    );
    expect(error.hint).toBe(formatHint);
  });

  it("detects a patch squeezed onto one line", () => {
    const error = refusal(() => parsePatch("*** Begin Patch *** Delete File: a.txt *** End Patch"));
    expect(error.message).toBe(
      "The whole patch is on one line (line 1): '*** Begin Patch' and '*** End Patch' must each be on a line of their own.",
    );
    expect(error.hint).toBe(
      "Put each marker and each patch line on its own line, separated by real line breaks: " +
        "'*** Begin Patch' alone on the first line, then each header and hunk line, then " +
        "'*** End Patch' alone on the last line.",
    );
  });

  it("says so when the one-line patch contains literal \\n sequences", () => {
    const error = refusal(() =>
      parsePatch("*** Begin Patch\\n*** Delete File: a.txt\\n*** End Patch"),
    );
    expect(error.message).toBe(
      "The whole patch is on one line (line 1): '*** Begin Patch' and '*** End Patch' must each be on " +
        "a line of their own. It contains literal '\\n' sequences instead of line breaks.",
    );
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

  it("points hunk lines outside an update to the missing Update header", () => {
    const error = refusal(() =>
      parsePatch(patchOf("*** Begin Patch", "*** Delete File: a", "-x", "*** End Patch")),
    );
    expect(error.message).toBe(
      "Invalid patch hunk on line 3: '-x' is not a valid hunk header. " +
        "Valid hunk headers: '*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'",
    );
    expect(error.hint).toBe(
      "Hunk lines belong to an update: put '*** Update File: {path}' before line 3, " +
        "or start new files with '*** Add File: {path}' and prefix each of their lines with '+'.",
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

  it("refuses a header without a path", () => {
    const error = refusal(() =>
      parsePatch(patchOf("*** Begin Patch", "*** Add File:", "+x", "*** End Patch")),
    );
    expect(error.message).toBe("Line 2: '*** Add File:' names no file.");
    expect(error.hint).toBe(
      "Write the file's workspace-relative path after the colon, e.g. '*** Add File: src/app.ts'.",
    );
  });

  it("refuses a Move to that does not follow an Update header", () => {
    const error = refusal(() =>
      parsePatch(
        patchOf("*** Begin Patch", "*** Delete File: a", "*** Move to: b", "*** End Patch"),
      ),
    );
    expect(error.message).toBe(
      "Invalid patch hunk on line 3: '*** Move to: b' does not directly follow an '*** Update File:' line.",
    );
    expect(error.hint).toBe(
      "Put '*** Move to: {path}' on the line right after the '*** Update File: {path}' of the file to move.",
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

  it("refuses an '@@' line with no hunk lines after it", () => {
    const error = refusal(() =>
      parsePatch(
        patchOf("*** Begin Patch", "*** Update File: a.txt", "-a", "+b", "@@ f()", "*** End Patch"),
      ),
    );
    expect(error.message).toBe(
      "Line 5: the last hunk in the update of 'a.txt' has an '@@' line but no hunk lines.",
    );
    expect(error.hint).toBe(
      "Add the hunk's lines after its '@@' line: ' ' unchanged, '-' removed, '+' added.",
    );
  });

  it("refuses a bare '@@' with no hunk lines after it, as it refuses '@@ f()'", () => {
    const error = refusal(() =>
      parsePatch(
        patchOf("*** Begin Patch", "*** Update File: a.txt", "-a", "+b", "@@", "*** End Patch"),
      ),
    );
    expect(error.message).toBe(
      "Line 5: the last hunk in the update of 'a.txt' has an '@@' line but no hunk lines.",
    );
  });

  it("refuses '*** End of File' that follows no hunk lines, and hunk lines after it", () => {
    const early = refusal(() =>
      parsePatch(
        patchOf("*** Begin Patch", "*** Update File: a", "@@", "*** End of File", "*** End Patch"),
      ),
    );
    expect(early.message).toBe(
      "Line 4: '*** End of File' in the update of 'a' does not follow any hunk lines.",
    );
    expect(early.hint).toBe(
      "Put '*** End of File' right after the last line of the hunk that ends the file, or remove it.",
    );
    const late = refusal(() =>
      parsePatch(
        patchOf(
          "*** Begin Patch",
          "*** Update File: a",
          "-a",
          "*** End of File",
          "+b",
          "*** End Patch",
        ),
      ),
    );
    expect(late.message).toBe(
      "Line 5: a hunk line follows '*** End of File' in the update of 'a'.",
    );
    expect(late.hint).toBe(
      "Start a new hunk with an '@@' line after '*** End of File', or move the line above it.",
    );
  });
});
