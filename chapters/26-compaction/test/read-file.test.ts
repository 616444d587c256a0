import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { constants } from "node:fs";
import { mkdir, open, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { readRegularFile } from "../src/fs/read-regular-file.ts";
import { isSecretFile } from "../src/fs/secret-files.ts";
import { runToolCall } from "../src/tools/run-tool-call.ts";
import { readFileTool, viewFile } from "../src/tools/read-file.ts";
import { useTempWorkspace } from "./tool-test-workspace.ts";

const workspace = useTempWorkspace();
const hashOf = (text: string) => createHash("sha256").update(text).digest("hex");
const numbered = (count: number) =>
  Array.from({ length: count }, (_, i) => `line ${i + 1}`).join("\n") + "\n";

async function put(relPath: string, content: string | Uint8Array) {
  const file = path.join(workspace.root(), relPath);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, content);
}

async function read(args: object) {
  return runToolCall(
    [readFileTool],
    { id: "r", function: { name: "read_file", arguments: JSON.stringify(args) } },
    workspace.context(),
  );
}

describe("read_file", () => {
  it("shows a whole file with line numbers and its hash", async () => {
    const text = "const a = 1;\r\nconst b = 2;\n";
    await put("src/a.ts", text);
    expect((await read({ path: "src/a.ts" })).content).toBe(
      `src/a.ts: full read, lines 1-2 of 2, sha256 ${hashOf(text)}\n` +
        "    1\tconst a = 1;\n" +
        "    2\tconst b = 2;",
    );
  });

  it("shows a range, with the hash of the whole file", async () => {
    const text = numbered(10);
    await put("a.txt", text);
    const view = await viewFile(workspace.root(), "a.txt", { offset: 4, limit: 2 });
    expect(view).toEqual({
      text: `a.txt: partial read, lines 4-5 of 10, sha256 of the whole file ${hashOf(text)}\n    4\tline 4\n    5\tline 5`,
      path: "a.txt",
      sha256: hashOf(text),
      fullRead: false,
      lines: { total: 10, shown: [[4, 5]] },
    });
  });

  it("counts offset=1 with a limit covering everything as a full read", async () => {
    await put("a.txt", numbered(3));
    expect((await viewFile(workspace.root(), "a.txt", { offset: 1, limit: 50 })).fullRead).toBe(
      true,
    );
    expect((await viewFile(workspace.root(), "a.txt", { offset: 2 })).fullRead).toBe(false);
  });

  it("truncates long files and says exactly how to read the rest", async () => {
    const text = numbered(5400);
    await put("big.txt", text);
    const view = await viewFile(workspace.root(), "big.txt");
    const lines = view.text.split("\n");
    expect(view.fullRead).toBe(false);
    expect(lines[0]).toBe(
      `big.txt: partial read, lines 1-2000 of 5400, sha256 of the whole file ${hashOf(text)}`,
    );
    expect(lines[2000]).toBe(" 2000\tline 2000");
    expect(lines.at(-1)).toBe(
      "... truncated: lines 2001-5400 not shown; call read_file with offset=2001",
    );
    const next = await viewFile(workspace.root(), "big.txt", { offset: 2001 });
    expect(next.text.split("\n")[1]).toBe(" 2001\tline 2001");
  });

  it("caps the bytes of one call as well as the lines", async () => {
    await put("wide.txt", `${"x".repeat(1500)}\n`.repeat(100));
    const view = await viewFile(workspace.root(), "wide.txt");
    expect(view.text.length).toBeLessThan(100_000 + 200);
    expect(view.text).toMatch(
      /\n\.\.\. truncated: lines (\d+)-100 not shown; call read_file with offset=\1$/,
    );
  });

  it("cuts very long lines and does not count that as a full read", async () => {
    await put("min.js", `${"y".repeat(5000)}\n`);
    const view = await viewFile(workspace.root(), "min.js");
    expect(view.fullRead).toBe(false);
    expect(view.text).toContain(`${"y".repeat(2000)}… [line cut]`);
    expect(view.text.split("\n").at(-1)).toBe(
      "... 1 long line(s) cut at 2000 characters; use search_text to see specific parts",
    );
  });

  it("reads an empty file", async () => {
    await put("empty.txt", "");
    expect((await read({ path: "empty.txt" })).content).toBe(
      `empty.txt: empty file, full read, sha256 ${hashOf("")}`,
    );
  });

  it("refuses binary files", async () => {
    const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]);
    await put("logo.png", bytes);
    expect(await read({ path: "logo.png" })).toMatchObject({
      ok: false,
      content:
        "Error [binary_file]: logo.png looks like a binary file (it contains NUL bytes), so it cannot be shown as text. " +
        `Size 6 bytes, sha256 ${createHash("sha256").update(bytes).digest("hex")}.\n` +
        "Hint: Read text files only; use list_files to find the source files.",
    });
  });

  it("refuses directories with a hint to list them", async () => {
    await put("src/a.ts", "x\n");
    expect((await read({ path: "src" })).content).toBe(
      'Error [is_directory]: src is a directory, not a file.\nHint: Use list_files with path="src" to see what it contains.',
    );
  });

  it("reports missing files and offsets past the end", async () => {
    await put("a.txt", numbered(3));
    expect((await read({ path: "nope.ts" })).content).toBe(
      "Error [file_not_found]: nope.ts does not exist.\nHint: Use list_files or search_text to find the right path.",
    );
    expect((await read({ path: "a.txt", offset: 9 })).content).toBe(
      "Error [invalid_range]: offset=9 is past the end of a.txt, which has 3 lines.\nHint: Call read_file with an offset between 1 and 3.",
    );
  });

  it("refuses paths outside the workspace", async () => {
    const result = await read({ path: "../etc/passwd" });
    expect(result.ok).toBe(false);
    expect(result.content).toBe(
      `Error [path_escape]: Path "../etc/passwd" resolves outside the workspace root (${workspace.root()}).\n` +
        'Hint: Remove the ".." segments that leave the workspace. Use a path relative to the workspace root, such as "src/index.ts".',
    );
  });

  it("validates offset and limit", async () => {
    expect((await read({ path: "a.txt", offset: 0 })).content).toBe(
      "Error: invalid arguments for read_file:\n- offset: Too small: expected number to be >=1\nCall read_file again with corrected arguments.",
    );
  });
});

describe("read_file and files that are not regular files", () => {
  const unix = process.platform !== "win32";

  /** A FIFO in the workspace; opening it for writing afterwards frees a reader stuck on it. */
  async function fifo(relPath: string) {
    const file = path.join(workspace.root(), relPath);
    execFileSync("mkfifo", [file]);
    return {
      release: async () => {
        const writer = await open(file, constants.O_WRONLY | constants.O_NONBLOCK).catch(
          () => null,
        );
        await writer?.close();
      },
    };
  }

  it.runIf(unix)(
    "refuses a named pipe (FIFO) at once instead of waiting for a writer",
    async () => {
      const pipe = await fifo("events.log");
      try {
        expect(await read({ path: "events.log" })).toMatchObject({
          ok: false,
          code: "not_regular_file",
          content:
            "Error [not_regular_file]: events.log is a named pipe (FIFO), not a regular file: reading it could wait forever or never end.\n" +
            "Hint: read_file reads regular files only; leave this one alone.",
        });
      } finally {
        await pipe.release();
      }
    },
  );

  // Making a device node takes root (or CAP_MKNOD); elsewhere this test is skipped.
  const canMknod = unix && process.getuid?.() === 0;

  it.runIf(canMknod)("refuses a device such as /dev/zero, which never ends", async () => {
    execFileSync("mknod", [path.join(workspace.root(), "zero.txt"), "c", "1", "5"]);
    expect((await read({ path: "zero.txt" })).content).toBe(
      "Error [not_regular_file]: zero.txt is a device, not a regular file: reading it could wait forever or never end.\n" +
        "Hint: read_file reads regular files only; leave this one alone.",
    );
    expect((await readRegularFile("/dev/zero")).bytes).toBeNull();
  });
});

describe("read_file and secret files", () => {
  const SECRET = "OPENAI_API_KEY=sk-do-not-send-me\n";
  const refusal = (where: string) =>
    `Error [secret_file]: ${where} looks like a file of secrets (keys, passwords, tokens); read_file does not show it, because what it shows is sent to the model's provider.\n` +
    "Hint: Work without it. If you need a value from it, ask the user.";

  it("refuses .env files, credential files and private keys, in any folder", async () => {
    for (const name of [".env", "app/.env.local", ".npmrc", ".ssh/id_rsa", "certs/server.key"]) {
      await put(name, SECRET);
      const result = await read({ path: name });
      expect(result).toMatchObject({ ok: false, code: "secret_file", content: refusal(name) });
      expect(result.content).not.toContain("sk-do-not-send-me");
    }
  });

  it("refuses a secret reached through a link, and a link named like a secret", async () => {
    await put(".env", SECRET);
    await put("notes.txt", "plain\n");
    await symlink(path.join(workspace.root(), ".env"), path.join(workspace.root(), "config.txt"));
    await symlink(
      path.join(workspace.root(), "notes.txt"),
      path.join(workspace.root(), ".env.prod"),
    );
    expect((await read({ path: "config.txt" })).content).toBe(refusal(".env"));
    expect((await read({ path: ".env.prod" })).content).toBe(refusal("notes.txt"));
  });

  it("shows .env templates, and secret files when the user sets AGENT_READ_SECRETS=1", async () => {
    await put(".env.example", "OPENAI_API_KEY=\n");
    expect((await read({ path: ".env.example" })).ok).toBe(true);
    await put(".env", SECRET);
    vi.stubEnv("AGENT_READ_SECRETS", "1");
    try {
      expect((await read({ path: ".env" })).content).toContain("OPENAI_API_KEY=sk-do-not-send-me");
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it("decides by the file's name, in any case", () => {
    const secret = [".env", ".ENV", "a/b/.env.test", "id_ed25519", "x\\.netrc", "tls.PEM"];
    const plain = [".env.example", "env.ts", "id_rsa.pub", "src/key.ts", "keys.json", "README"];
    expect(secret.filter(isSecretFile)).toEqual(secret);
    expect(plain.filter(isSecretFile)).toEqual([]);
  });
});
