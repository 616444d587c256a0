import { mkdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { listFilesTool } from "../src/tools/list-files.ts";
import { runToolCall } from "../src/tools/run-tool-call.ts";
import {
  compileQuery,
  matchingLines,
  SEARCH_LIMITS,
  searchTextTool,
} from "../src/tools/search-text.ts";
import { useTempWorkspace } from "./tool-test-workspace.ts";

const workspace = useTempWorkspace();

async function put(relPath: string, content: string | Uint8Array = "") {
  const file = path.join(workspace.root(), relPath);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, content);
}

async function run(name: string, args: object) {
  const result = await runToolCall(
    [listFilesTool, searchTextTool],
    { id: "t", function: { name, arguments: JSON.stringify(args) } },
    workspace.context(),
  );
  return result.content;
}

async function projectTree() {
  await put(".gitignore", "dist/\n*.log\n");
  await put("src/cart.mjs", "export function total(items) {\n  return 0; // TODO\n}\n");
  await put("src/util/format.mjs", "export const format = (n) => `${n}`;\n");
  await put("src/util/.gitignore", "generated.mjs\n");
  await put("src/util/generated.mjs", "// TODO generated\n");
  await put("README.md", "# Shop\nTODO: docs\n");
  await put("debug.log", "TODO in a log\n");
  await put("dist/cart.mjs", "// TODO built\n");
  await put("node_modules/x/index.js", "// TODO dependency\n");
  await put(".git/config", "TODO\n");
  await put(".agent/runs/1.jsonl", "TODO\n");
}

describe("list_files", () => {
  it("lists visible files, honouring .gitignore files and skipped folders", async () => {
    await projectTree();
    expect(await run("list_files", {})).toBe(
      [
        "5 file(s) in the workspace:",
        ".gitignore",
        "README.md",
        "src/cart.mjs",
        "src/util/.gitignore",
        "src/util/format.mjs",
      ].join("\n"),
    );
  });

  it("lists one folder, still honouring the root .gitignore", async () => {
    await projectTree();
    await put("src/trace.log", "");
    expect(await run("list_files", { path: "src/util" })).toBe(
      "2 file(s) under src/util/:\nsrc/util/.gitignore\nsrc/util/format.mjs",
    );
    expect(await run("list_files", { path: "src" })).not.toContain("trace.log");
  });

  it("filters with a glob; a glob without a slash matches file names", async () => {
    await projectTree();
    expect(await run("list_files", { glob: "*.mjs" })).toBe(
      '2 file(s) in the workspace matching "*.mjs":\nsrc/cart.mjs\nsrc/util/format.mjs',
    );
    expect(await run("list_files", { glob: "src/*.mjs" })).toBe(
      '1 file(s) in the workspace matching "src/*.mjs":\nsrc/cart.mjs',
    );
    expect(await run("list_files", { glob: "*.py" })).toBe(
      'No files found in the workspace matching "*.py".',
    );
  });

  it("caps the listing and says how many were left out", async () => {
    for (let i = 0; i < 512; i++) await put(`many/f${String(i).padStart(3, "0")}.txt`);
    const lines = (await run("list_files", {})).split("\n");
    expect(lines[0]).toBe("512 file(s) in the workspace:");
    expect(lines).toHaveLength(1 + 200 + 1);
    expect(lines.at(-1)).toBe("... 312 more files not shown; narrow with glob or path");
  });

  it("does not follow symlinks", async () => {
    await put("src/a.txt");
    await symlink(path.join(workspace.root(), "src"), path.join(workspace.root(), "loop"));
    expect(await run("list_files", {})).toBe("1 file(s) in the workspace:\nsrc/a.txt");
  });

  it("explains a bad folder argument", async () => {
    await put("src/a.txt");
    expect(await run("list_files", { path: "src/a.txt" })).toBe(
      'Error [not_a_directory]: src/a.txt is a file, not a folder.\nHint: Use read_file with path="src/a.txt" to read it.',
    );
    expect(await run("list_files", { path: "lib" })).toBe(
      "Error [file_not_found]: lib does not exist.\nHint: Call list_files without a path to see the whole workspace.",
    );
  });
});

describe("search_text", () => {
  it("prints path:line: text for visible files only", async () => {
    await projectTree();
    expect(await run("search_text", { query: "TODO" })).toBe(
      "README.md:2: TODO: docs\nsrc/cart.mjs:2: return 0; // TODO",
    );
  });

  it("searches with a regular expression, a glob and a folder", async () => {
    await projectTree();
    expect(await run("search_text", { query: "^export (function|const)", regex: true })).toBe(
      "src/cart.mjs:1: export function total(items) {\nsrc/util/format.mjs:1: export const format = (n) => `${n}`;",
    );
    expect(await run("search_text", { query: "export", glob: "format.*" })).toBe(
      "src/util/format.mjs:1: export const format = (n) => `${n}`;",
    );
    expect(await run("search_text", { query: "export", path: "src/util" })).toBe(
      "src/util/format.mjs:1: export const format = (n) => `${n}`;",
    );
  });

  it("anchors ^ and $ at every line of a file, not only at its start and end", async () => {
    await put("a.js", "// header\nexport const a = 1;\nconst b = 2; // end\nlast\n");
    expect(await run("search_text", { query: "^export", regex: true })).toBe(
      "a.js:2: export const a = 1;",
    );
    expect(await run("search_text", { query: "end$", regex: true })).toBe(
      "a.js:3: const b = 2; // end",
    );
  });

  it("splits into lines only the files that contain a match", () => {
    for (const [query, isRegex] of [
      ["needle", false],
      ["ne+dle", true],
    ] as const) {
      const compiled = compileQuery(query, isRegex);
      let lineTests = 0;
      const counted = {
        inFile: compiled.inFile,
        inLine: (line: string) => (lineTests++, compiled.inLine(line)),
      };
      expect(matchingLines(Buffer.from("hay\nhay\nhay\n"), counted)).toEqual([]);
      expect(lineTests).toBe(0);
      expect(matchingLines(Buffer.from("hay\r\nneedle\r\nhay"), counted)).toEqual([[1, "needle"]]);
      expect(lineTests).toBe(3);
    }
  });

  it("treats the query literally unless regex is set", async () => {
    await put("a.js", "call(x)\ncallx\n");
    expect(await run("search_text", { query: "call(x)" })).toBe("a.js:1: call(x)");
  });

  it("reports an invalid regular expression", async () => {
    expect(await run("search_text", { query: "total(", regex: true })).toBe(
      'Error [invalid_regex]: "total(" is not a valid regular expression: Unterminated group.\n' +
        "Hint: Fix the pattern (JavaScript syntax, without backreferences or lookaround), or call search_text with regex=false to find the literal text.",
    );
  });

  it("runs a model's pattern in linear time, and refuses one that could not be", async () => {
    // "(a+)+$" backtracks for minutes on this line in the default engine: an agent that hangs
    // (test/attacks/first-hour.test.ts runs it in a child it can kill).
    await put("a.js", `${"a".repeat(40)}!\n`);
    expect(await run("search_text", { query: "(a+)+$", regex: true })).toMatch(/^No matches/);
    expect(await run("search_text", { query: "(a+)+(?=b)", regex: true })).toContain(
      '"(a+)+(?=b)" is not a valid regular expression: Cannot be executed in linear time.',
    );
  });

  it("says when nothing matched", async () => {
    await projectTree();
    expect(await run("search_text", { query: "nothing-like-this" })).toBe(
      'No matches for "nothing-like-this" in 5 file(s) in the workspace.',
    );
  });

  it("skips binary files and caps the matches", async () => {
    await put("bin.dat", Buffer.from("needle\0needle"));
    await put("many.txt", "needle\n".repeat(130));
    const lines = (await run("search_text", { query: "needle" })).split("\n");
    expect(lines).toHaveLength(101);
    expect(lines[0]).toBe("many.txt:1: needle");
    expect(lines.at(-1)).toBe("... 30 more matches not shown; narrow with glob or path");
  });

  it("counts every match past the cap, across files, in path order", async () => {
    for (const name of ["c.txt", "a.txt", "b.txt"]) await put(name, "needle\n".repeat(60));
    const lines = (await run("search_text", { query: "needle" })).split("\n");
    expect(lines).toHaveLength(101);
    expect(lines[59]).toBe("a.txt:60: needle");
    expect(lines[99]).toBe("b.txt:40: needle");
    expect(lines.at(-1)).toBe("... 80 more matches not shown; narrow with glob or path");
  });

  it("leaves files of secrets out of a search, and says so, unless the user allows them", async () => {
    await put(".env", "API_KEY=needle-secret\n");
    await put("deploy/id_rsa", "needle\n");
    await put(".env.example", "API_KEY=needle\n");
    expect(await run("search_text", { query: "needle" })).toBe(
      ".env.example:1: API_KEY=needle\n(2 file(s) of secrets, such as .env, not searched)",
    );
    process.env.AGENT_READ_SECRETS = "1";
    try {
      expect(await run("search_text", { query: "needle-secret" })).toBe(
        ".env:1: API_KEY=needle-secret",
      );
    } finally {
      delete process.env.AGENT_READ_SECRETS;
    }
  });

  it("skips a file over the size limit", async () => {
    await put("big.txt", "needle\n".padEnd(SEARCH_LIMITS.maxFileBytes + 1, "x"));
    await put("small.txt", "needle\n");
    expect(await run("search_text", { query: "needle" })).toBe("small.txt:1: needle");
  });
});
