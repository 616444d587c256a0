import { execFileSync, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { chmod, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { main, type CliIo } from "../src/apply-patch-cli.ts";
import type { ApplyPatchResult } from "../src/patch/apply-patch.ts";
import { patch, sha256, tree, workspace } from "./apply-patch-fixtures.ts";

const USAGE =
  "usage: apply-patch [--cwd DIR] [--expect PATH=SHA256]... [--atomic] [--json] [FILE|-]\n";

/** Runs main() in-process with captured output; `stdin` undefined stands for a terminal. */
async function run(argv: string[], stdin?: string) {
  let stdout = "";
  let stderr = "";
  const io: CliIo = {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    readStdin: async () => stdin,
  };
  const status = await main(argv, io);
  return { status, stdout, stderr };
}

describe("apply-patch CLI", () => {
  it("prints Codex's summary: added, then modified (a move by its new path), then deleted", async () => {
    const root = await workspace({ "mod.txt": "a\n", "old.txt": "o\n", "gone.txt": "g\n" });
    const text = patch(
      "*** Delete File: gone.txt",
      "*** Update File: old.txt",
      "*** Move to: renamed.txt",
      "@@",
      "-o",
      "+r",
      "*** Update File: mod.txt",
      "@@",
      "-a",
      "+b",
      "*** Add File: new.txt",
      "+n",
    );
    const result = await run(["--cwd", root, text]);
    expect(result).toEqual({
      status: 0,
      stdout:
        "Success. Updated the following files:\nA new.txt\nM renamed.txt\nM mod.txt\nD gone.txt\n",
      stderr: "",
    });
    expect(await tree(root)).toEqual({ "mod.txt": "b\n", "new.txt": "n\n", "renamed.txt": "r\n" });
  });

  it("applies a `cd DIR && apply_patch <<'EOF'` heredoc inside DIR, and refuses other shell text", async () => {
    const root = await workspace({ "pkg/a.txt": "a\n" });
    const body = "*** Begin Patch\n*** Add File: new.txt\n+n\n*** End Patch\nEOF\n";
    const result = await run(["--cwd", root, "-"], `cd pkg && apply_patch <<'EOF'\n${body}`);
    expect(result).toMatchObject({
      status: 0,
      stdout: expect.stringContaining("\nA pkg/new.txt\n"),
    });
    const refused = await run(["--cwd", root, "-"], `echo hi && apply_patch <<'EOF'\n${body}`);
    expect(refused.status).toBe(1);
    expect(await tree(root)).toEqual({ "pkg/a.txt": "a\n", "pkg/new.txt": "n\n" });
  });

  it("reads the patch from a FILE, from stdin with '-', and from stdin when no argument is given", async () => {
    const root = await workspace({ "f.txt": "1\n" });
    const file = path.join(root, "p.patch.txt");
    await writeFile(file, patch("*** Update File: f.txt", "@@", "-1", "+2"));
    expect((await run(["--cwd", root, file])).status).toBe(0);
    expect(
      (await run(["--cwd", root, "-"], patch("*** Update File: f.txt", "@@", "-2", "+3"))).status,
    ).toBe(0);
    expect(
      (await run(["--cwd", root], patch("*** Update File: f.txt", "@@", "-3", "+4"))).status,
    ).toBe(0);
    expect((await tree(root))["f.txt"]).toBe("4\n");
  });

  it("prints exactly one JSON object with --json, and exits 1 when something failed", async () => {
    const root = await workspace({ "a.txt": "a\n", "b.txt": "b\n" });
    const text = patch(
      "*** Update File: a.txt",
      "@@",
      "-a",
      "+A",
      "*** Update File: b.txt",
      "@@",
      "-zzz",
      "+B",
    );
    const result = await run(["--cwd", root, "--json", text]);
    expect(result.status).toBe(1);
    expect(result.stderr).toBe("");
    const json = JSON.parse(result.stdout) as ApplyPatchResult;
    expect(json.success).toBe(false);
    expect(json.changed.map((c) => c.path)).toEqual(["a.txt"]);
    expect(json.failures.map((f) => [f.path, f.code])).toEqual([["b.txt", "context_not_found"]]);
    expect(json.remaining_patch).toBe(patch("*** Update File: b.txt", "@@", "-zzz", "+B"));
  });

  it("reports a failure on stderr: what failed, what was still applied, and the remaining patch", async () => {
    const root = await workspace({ "a.txt": "a\n" });
    const text = patch("*** Update File: a.txt", "@@", "-a", "+A", "*** Delete File: missing.txt");
    const result = await run(["--cwd", root, text]);
    expect(result.status).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(
      [
        "error [file_not_found] missing.txt: Cannot delete missing.txt: the file does not exist.",
        "  hint: Check the path with list_files; if the file is already gone, drop this Delete File from the patch.",
        "These files were still updated:",
        "M a.txt",
        "Remaining patch (fix the cause, then apply this):",
        "*** Begin Patch",
        "*** Delete File: missing.txt",
        "*** End Patch",
        "",
      ].join("\n"),
    );
  });

  it("says when no file was modified", async () => {
    const root = await workspace();
    const result = await run(["--cwd", root, "*** Begin Patch\n*** End Patch\n"]);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("error [invalid_patch]");
    expect(result.stderr).toContain("No files were modified.\n");
  });

  it("guards with --expect PATH=SHA256: a match applies, by normalised path and any case", async () => {
    const root = await workspace({ "f.txt": "a\n" });
    const text = patch("*** Update File: f.txt", "@@", "-a", "+b");
    const fresh = await run([
      "--cwd",
      root,
      "--expect",
      `./f.txt=${sha256("a\n").toUpperCase()}`,
      text,
    ]);
    expect(fresh).toEqual({
      status: 0,
      stdout: "Success. Updated the following files:\nM f.txt\n",
      stderr: "",
    });
    expect(await tree(root)).toEqual({ "f.txt": "b\n" });
  });

  it("refuses a mismatched --expect with file_changed and the current hash, exit 1, nothing written", async () => {
    const root = await workspace({ "f.txt": "a\n" });
    const text = patch("*** Update File: f.txt", "@@", "-a", "+b");
    const stale = sha256("x");
    const current = sha256("a\n");
    const result = await run(["--cwd", root, "--expect", `f.txt=${stale}`, text]);
    expect(result).toEqual({
      status: 1,
      stdout: "",
      stderr: [
        `error [file_changed] f.txt: f.txt has changed since it was last read: expected sha256 ${stale}, found ${current}.`,
        "  hint: Read f.txt again and rebuild the patch against its current contents.",
        `  current sha256: ${current}`,
        "No files were modified.",
        "Remaining patch (fix the cause, then apply this):",
        text,
      ].join("\n"),
    });
    const json = await run(["--cwd", root, "--json", "--expect", `f.txt=${stale}`, text]);
    expect(json.status).toBe(1);
    expect((JSON.parse(json.stdout) as ApplyPatchResult).failures).toEqual([
      expect.objectContaining({ path: "f.txt", code: "file_changed", current_sha256: current }),
    ]);
    expect(await tree(root, true)).toEqual({ "f.txt": "a\n" });
  });

  it.each([
    ["success", patch("*** Add File: n.txt", "+n"), 0],
    ["a repaired patch", "```patch\n" + patch("*** Add File: m.txt", "+m") + "```\n", 0],
    ["a partial failure", patch("*** Add File: o.txt", "+o", "*** Delete File: gone.txt"), 1],
    ["an invalid patch", "*** Begin Patch *** Add File: x.txt *** End Patch", 1],
  ])(
    "with --json prints exactly one JSON object and nothing else, for %s",
    async (_, text, status) => {
      const root = await workspace();
      const result = await run(["--cwd", root, "--json", text]);
      expect(result.status).toBe(status);
      expect(result.stderr).toBe("");
      expect(result.stdout.endsWith("}\n")).toBe(true);
      expect(result.stdout.split("\n")).toHaveLength(2);
      const json = JSON.parse(result.stdout) as ApplyPatchResult;
      expect(json.success).toBe(status === 0);
      expect(Object.keys(json)).toEqual(
        expect.arrayContaining([
          "success",
          "files_changed",
          "changed",
          "failures",
          "remaining_patch",
        ]),
      );
    },
  );

  it("with --atomic writes nothing when one file fails, and says so", async () => {
    const root = await workspace({ "a.txt": "a\n" });
    const text = patch("*** Update File: a.txt", "@@", "-a", "+A", "*** Delete File: missing.txt");
    const plain = await run(["--cwd", root, "--atomic", text]);
    expect(plain.status).toBe(1);
    expect(plain.stderr).toContain("No files were modified.\n");
    expect(plain.stderr).toContain(
      "note: --atomic: no file was written because another file in the patch failed.\n",
    );
    const json = await run(["--cwd", root, "--atomic", "--json", text]);
    expect(json.status).toBe(1);
    const result = JSON.parse(json.stdout) as ApplyPatchResult;
    expect(result).toMatchObject({ success: false, files_changed: 0, changed: [] });
    expect(result.failures.map((f) => [f.path, f.code])).toEqual([
      ["missing.txt", "file_not_found"],
    ]);
    expect(result.remaining_patch).toBe(text);
    expect(await tree(root)).toEqual({ "a.txt": "a\n" });
    // Without --atomic the same patch updates a.txt.
    expect((await run(["--cwd", root, text])).status).toBe(1);
    expect(await tree(root)).toEqual({ "a.txt": "A\n" });
  });

  it.each([
    [["--bogus"], "apply-patch: Unknown option '--bogus'"],
    [
      ["--expect", "f.txt"],
      "apply-patch: --expect f.txt: write it as PATH=SHA256, the file's path and the 64 hex digits of its SHA-256 (sha256sum prints them).",
    ],
    [
      ["a", "b"],
      'apply-patch: expected at most one patch (FILE, "-" or the patch text), got 2 arguments. Quote the patch text as one argument.',
    ],
    [["no-such-file.patch"], "apply-patch: no such patch file: no-such-file.patch"],
    [[], "apply-patch: no patch given: pass FILE, or pipe the patch into stdin."],
  ])("exits 2 with the usage line for %j", async (argv, message) => {
    const root = await workspace();
    const result = await run(["--cwd", root, ...argv]);
    expect(result.status).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr.startsWith(message)).toBe(true);
    expect(result.stderr.endsWith(USAGE)).toBe(true);
  });

  it("exits 2 when --cwd is not a directory, and 0 with the usage for --help", async () => {
    const missing = path.join(await workspace(), "nope");
    const bad = await run(["--cwd", missing, "-"], patch("*** Add File: x.txt", "+x"));
    expect(bad).toEqual({
      status: 2,
      stdout: "",
      stderr: `apply-patch: --cwd ${missing} is not an existing directory.\n${USAGE}`,
    });
    expect(await run(["--help"])).toEqual({ status: 0, stdout: USAGE, stderr: "" });
  });

  it("exits 2 with one line when the patch file is a folder or a named pipe, without waiting", async () => {
    const root = await workspace();
    expect(await run(["--cwd", root, root])).toEqual({
      status: 2,
      stdout: "",
      stderr: `apply-patch: ${root} is a directory, not a patch file.\n${USAGE}`,
    });
    if (process.platform === "win32") return;
    const pipe = path.join(root, "p.fifo");
    execFileSync("mkfifo", [pipe]);
    expect((await run(["--cwd", root, pipe])).stderr).toBe(
      `apply-patch: ${pipe} is a named pipe (FIFO), not a patch file.\n${USAGE}`,
    );
  });

  // Root reads any file whatever its mode, and the tests run as root in CI.
  it.skipIf(process.getuid?.() === 0 || process.platform === "win32")(
    "exits 2 with one line when the patch file cannot be read",
    async () => {
      const root = await workspace();
      const file = path.join(root, "p.patch");
      await writeFile(file, patch("*** Add File: x.txt", "+x"));
      await chmod(file, 0o000);
      expect(await run(["--cwd", root, file])).toEqual({
        status: 2,
        stdout: "",
        stderr: `apply-patch: EACCES: permission denied, open '${file}'\n${USAGE}`,
      });
    },
  );

  // Even root gets an error reading /proc/self/mem from offset 0: a patch file that fails mid-read.
  it.runIf(process.platform === "linux")(
    "exits 2 with one line, not a stack trace, when reading the patch file fails",
    async () => {
      expect(await run(["--cwd", await workspace(), "/proc/self/mem"])).toEqual({
        status: 2,
        stdout: "",
        stderr: `apply-patch: EIO: i/o error, read\n${USAGE}`,
      });
    },
  );

  it("refuses a patch file that is not UTF-8 instead of writing U+FFFD", async () => {
    const root = await workspace();
    const file = path.join(root, "latin1.patch");
    await writeFile(file, Buffer.from(patch("*** Add File: x.txt", "+caf\u00e9"), "latin1"));
    expect(await run(["--cwd", root, file])).toEqual({
      status: 2,
      stdout: "",
      stderr: `apply-patch: ${file} is not UTF-8 text; convert it first (iconv -t UTF-8).\n${USAGE}`,
    });
    expect(await tree(root)).toEqual({ "latin1.patch": expect.any(String) });
  });
});

describe("apply-patch as a program", () => {
  const cli = fileURLToPath(new URL("../src/apply-patch-cli.ts", import.meta.url));
  // Resolved here: `--import tsx` alone would be looked up from the temp workspace.
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
  const spawnCli = (args: string[], cwd: string, stdin: string | Buffer) =>
    new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, ["--import", tsx, cli, ...args], { cwd });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      child.on("error", reject);
      child.on("close", (status) => resolve({ status, stdout, stderr }));
      child.stdin.end(stdin);
    });

  it("takes the patch as one argv argument in its cwd, as Codex's harness calls it", async () => {
    const root = await workspace({ "f.txt": "a\n" });
    const result = await spawnCli([patch("*** Update File: f.txt", "@@", "-a", "+b")], root, "");
    expect(result).toEqual({
      status: 0,
      stdout: "Success. Updated the following files:\nM f.txt\n",
      stderr: "",
    });
    expect((await tree(root))["f.txt"]).toBe("b\n");
  });

  it("reads stdin and sets the exit status", async () => {
    const root = await workspace();
    const failed = await spawnCli(["--json"], root, patch("*** Delete File: missing.txt"));
    expect(failed.status).toBe(1);
    expect((JSON.parse(failed.stdout) as ApplyPatchResult).failures[0]!.code).toBe(
      "file_not_found",
    );
  });

  it("refuses a patch on stdin that is not UTF-8, with exit 2", async () => {
    const root = await workspace();
    const latin1 = Buffer.from(patch("*** Add File: x.txt", "+caf\u00e9"), "latin1");
    expect(await spawnCli(["-"], root, latin1)).toEqual({
      status: 2,
      stdout: "",
      stderr: `apply-patch: the patch on stdin is not UTF-8 text; convert it first (iconv -t UTF-8).\n${USAGE}`,
    });
    expect(await tree(root)).toEqual({});
  });
});
