// Attack: a hostile model against the first hour's tools (chapter 3's list_files, read_file and
// edit_file) and their guarded versions (chapter 7, carried into chapter 8 beside search_text).
// Every call is sent the way a model sends it: a raw JSON argument string through the chapter's
// own runToolCall, and, for chapter 8, through its main against a scripted offline model.
//
// Chapter 7 and 8 promise real-path confinement, answers for every call (no hang), caps, and no
// secret files: those refusals are asserted. Chapter 3 checks paths as text only, and its page
// says a symlink leads anywhere: what goes through that gap is recorded (ATTACK_REPORT=1), never
// asserted either way. A test whose comment says "found here, fixed" pins a bug this file found.
import { execFile, execFileSync } from "node:child_process";
import { constants } from "node:fs";
import {
  lstat,
  mkdir,
  mkdtemp,
  open,
  readdir,
  readFile,
  readlink,
  rename,
  rm,
  symlink,
  writeFile,
} from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { startOfflineModel, type Script } from "../../shared/src/offline-model/index.ts";
import { afterAll, afterEach, beforeAll, describe, expect, it, test, vi } from "vitest";
import { runToolCall as run3 } from "../../chapters/03-tools/src/tools/run-tool-call.ts";
import { toolCallLine as line3 } from "../../chapters/03-tools/src/tools/tool-call-line.ts";
import { workspaceTools as tools3 } from "../../chapters/03-tools/src/tools/workspace-tools.ts";
import { runToolCall as run7 } from "../../chapters/07-tool-guards/src/tools/run-tool-call.ts";
import { toolCallLine as line7 } from "../../chapters/07-tool-guards/src/tools/tool-call-line.ts";
import { workspaceTools as tools7 } from "../../chapters/07-tool-guards/src/tools/workspace-tools.ts";
import { main as main8 } from "../../chapters/08-workspace-search/src/main.ts";
import { editFileTool as edit8 } from "../../chapters/08-workspace-search/src/tools/edit-file.ts";
import { runToolCall as run8 } from "../../chapters/08-workspace-search/src/tools/run-tool-call.ts";
import { toolCallLine as line8 } from "../../chapters/08-workspace-search/src/tools/tool-call-line.ts";
import { workspaceTools as looking8 } from "../../chapters/08-workspace-search/src/tools/workspace-tools.ts";
import { report, SCALE, scratch, sha256, timeLimit, Worker } from "./attack-kit.ts";

const SECRET = "the secret outside the workspace";
const SOURCE = "export const a = 1;\n";
// What a terminal obeys: C0 controls but \n, DEL and C1 (\x9b is CSI), bidi overrides and isolates.
const RAW_CONTROL =
  // eslint-disable-next-line no-control-regex -- the characters looked for
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;

/** What a tool call came to, and the line the person watching sees for it. */
interface Answer {
  ok: boolean;
  content: string;
  code?: string;
  line: string;
}
type Args = string | Record<string, unknown>;

interface Chapter {
  label: string;
  /** Sends one tool call; a string is sent as the raw arguments, an object as its JSON. */
  call(cwd: string, name: string, args: Args): Promise<Answer>;
}

let ids = 0;
function request(name: string, args: Args) {
  const text = typeof args === "string" ? args : JSON.stringify(args);
  return { id: `hostile_${++ids}`, function: { name, arguments: text } };
}
const context = (cwd: string) => ({ cwd, signal: new AbortController().signal });

const CH3: Chapter = {
  label: "chapter 3",
  async call(cwd, name, args) {
    const req = request(name, args);
    const result = await run3(tools3, req, context(cwd));
    return { ...result, line: line3(req, result) };
  },
};
const CH7: Chapter = {
  label: "chapter 7",
  async call(cwd, name, args) {
    const req = request(name, args);
    const result = await run7(tools7, req, context(cwd));
    return { ...result, line: line7(req, result) };
  },
};
// Chapter 8's main offers the looking tools with edit_file beside them.
const tools8 = [...looking8, edit8];
const CH8: Chapter = {
  label: "chapter 8",
  async call(cwd, name, args) {
    const req = request(name, args);
    const result = await run8(tools8, req, context(cwd));
    return { ...result, line: line8(req, result) };
  },
};

/** A workspace and, beside it, a folder the model must never read or change. */
async function fixture() {
  const base = await scratch("first-hour");
  const ws = path.join(base, "ws");
  const outside = path.join(base, "outside");
  await mkdir(path.join(ws, "src"), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(ws, "src", "a.js"), SOURCE);
  await writeFile(path.join(outside, "secret.txt"), `${SECRET}\n`);
  // The same text as the workspace's file: an edit that went through a link would find old_text.
  await writeFile(path.join(outside, "victim.js"), SOURCE);
  await writeFile(path.join(outside, "a.js"), SOURCE);
  return { base, ws, outside, at: (...parts: string[]) => path.join(ws, ...parts) };
}

/** Every entry under `dir` (not following links): a file's hash, a link's target, or "dir". */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of (await readdir(dir, { recursive: true })).sort()) {
    const full = path.join(dir, name);
    const info = await lstat(full);
    if (info.isSymbolicLink()) out[name] = `link -> ${await readlink(full)}`;
    else if (info.isFile()) out[name] = sha256(await readFile(full));
    else out[name] = info.isDirectory() ? "dir" : "special";
  }
  return out;
}

/** The answer, or "hung" if none came within `ms`. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | "hung"> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"hung">((resolve) => (timer = setTimeout(() => resolve("hung"), ms)));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Lets a reader stuck on a FIFO go: open it for writing (a reader waits in its open), then close,
 *  until the stuck call has settled. */
async function releaseFifo(fifo: string, settled: () => boolean): Promise<void> {
  for (let attempt = 0; attempt < 300 && !settled(); attempt++) {
    try {
      await (await open(fifo, constants.O_WRONLY | constants.O_NONBLOCK)).close();
    } catch {
      // ENXIO: no reader has it open (yet, or any more).
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A tool call that must not hang: answered within 3 s, the FIFO released in any case. */
async function callNoHang(
  chapter: Chapter,
  cwd: string,
  name: string,
  args: Args,
  fifo?: string,
  ms = 3000,
) {
  let settled = false;
  const pending = chapter.call(cwd, name, args).finally(() => (settled = true));
  const answer = await within(pending, ms);
  if (answer === "hung" && fifo) {
    await releaseFifo(fifo, () => settled);
    await pending;
  }
  return answer;
}

const edit = (file: string, old_text: string, new_text = "owned") => ({
  path: file,
  old_text,
  new_text,
});

/** Invalid UTF-8 (Latin-1 é, a stray 0xff) around a line an edit changes. */
const LATIN1 = Buffer.concat([
  Buffer.from("const a = 1;\n// caf"),
  Buffer.from([0xe9]),
  Buffer.from(" au lait\n// "),
  Buffer.from([0xff, 0xfe]),
  Buffer.from("\n"),
]);
const LATIN1_EDITED = Buffer.concat([Buffer.from("const a = 2;"), LATIN1.subarray(12)]);

// ------------------------------------------------------------------------------------------
// The 100,000-file tree is made once: creating it takes seconds, listing it must not.
const TREE_FILES = 100_000;
const RACE_TRIALS = 100 * SCALE;
const HERE = path.dirname(fileURLToPath(import.meta.url));
const TSX = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
let tree: string;
beforeAll(async () => {
  tree = await mkdtemp(path.join(tmpdir(), "attack-first-hour-tree-"));
  const ws = path.join(tree, "ws");
  await mkdir(path.join(tree, "outside"));
  await writeFile(path.join(tree, "outside", "secret.txt"), `${SECRET}\n`);
  for (let folder = 0; folder < TREE_FILES / 1000; folder++) {
    const dir = path.join(ws, `d${String(folder).padStart(3, "0")}`);
    await mkdir(dir, { recursive: true });
    await Promise.all(
      Array.from({ length: 1000 }, (_, i) => writeFile(path.join(dir, `f${i}.txt`), "")),
    );
  }
  // A loop to itself, a link to the parent (which holds outside/), and one straight outside.
  await symlink(".", path.join(ws, "loop"));
  await symlink("..", path.join(ws, "up"));
  await symlink(path.join(tree, "outside"), path.join(ws, "out"));
}, 120_000);
afterAll(async () => {
  await rm(tree, { recursive: true, force: true });
});

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

// ------------------------------------------------------------------------------------------
describe.each([CH7, CH8])("attack: a hostile model against $label's guarded tools", (chapter) => {
  const call = chapter.call.bind(chapter);

  it("refuses a symlinked file and a symlinked folder that lead outside", async () => {
    const { ws, outside, at } = await fixture();
    await symlink(path.join(outside, "victim.js"), at("link.js"));
    await symlink(path.join(outside, "secret.txt"), at("notes.txt"));
    await symlink(outside, at("out"));
    await symlink(outside, at("src", "deeper"));
    const before = await snapshot(outside);

    const refused = [
      await call(ws, "read_file", '{"path":"link.js"}'),
      await call(ws, "read_file", '{"path":"notes.txt"}'),
      await call(ws, "read_file", '{"path":"out/secret.txt"}'),
      await call(ws, "read_file", '{"path":"src/deeper/secret.txt"}'),
      await call(ws, "edit_file", edit("link.js", "export const a = 1;")),
      await call(ws, "edit_file", edit("out/victim.js", "export const a = 1;")),
      await call(ws, "edit_file", edit("src/deeper/a.js", "export const a = 1;")),
      await call(ws, "list_files", '{"path":"out"}'),
      await call(ws, "list_files", '{"path":"src/deeper"}'),
    ];
    for (const answer of refused) {
      expect(answer, answer.content).toMatchObject({ ok: false, code: "symlink" });
      expect(answer.content).not.toContain(SECRET);
    }
    const listing = await call(ws, "list_files", "{}");
    expect(listing.ok).toBe(true);
    expect(listing.content).not.toMatch(/secret\.txt|victim\.js/);
    expect(await snapshot(outside)).toEqual(before);
    expect(await readFile(at("src", "a.js"), "utf8")).toBe(SOURCE);
  });

  it("refuses dangling and looping symlinks, and creates nothing through them", async () => {
    const { ws, base, outside, at } = await fixture();
    await symlink(path.join(outside, "created-by-the-model.js"), at("dangling.js"));
    await symlink(path.join(outside, "no-such-folder"), at("gone"));
    await symlink("loop", at("loop"));
    await symlink("b", at("a"));
    await symlink("a", at("b"));
    const before = await snapshot(base);

    const answers = [
      await call(ws, "read_file", '{"path":"dangling.js"}'),
      await call(ws, "edit_file", edit("dangling.js", "x")),
      await call(ws, "read_file", '{"path":"gone/x.js"}'),
      await call(ws, "edit_file", edit("gone/x.js", "x")),
      await call(ws, "read_file", '{"path":"loop"}'),
      await call(ws, "read_file", '{"path":"loop/x.js"}'),
      await call(ws, "edit_file", edit("loop/x.js", "x")),
      await call(ws, "edit_file", edit("a", "x")),
      await call(ws, "list_files", '{"path":"loop"}'),
      await call(ws, "list_files", '{"path":"a/b/a"}'),
    ];
    for (const answer of answers) {
      expect(answer, answer.content).toMatchObject({ ok: false, code: "symlink" });
    }
    expect((await call(ws, "list_files", "{}")).ok).toBe(true);
    expect(await snapshot(base)).toEqual(before);
  });

  it("refuses a folder and a file swapped for symlinks after list_files, before the edit", async () => {
    const { ws, outside, at } = await fixture();
    await writeFile(at("b.js"), SOURCE);
    const listing = await call(ws, "list_files", "{}");
    expect(listing.content).toContain("src/a.js");
    expect(listing.content).toContain("b.js");
    const before = await snapshot(outside);

    // Between the model's calls, something (a git checkout, a hostile postinstall) swaps them.
    await rename(at("src"), at("src-old"));
    await symlink(outside, at("src"));
    await rm(at("b.js"));
    await symlink(path.join(outside, "victim.js"), at("b.js"));

    for (const answer of [
      await call(ws, "edit_file", edit("src/a.js", "export const a = 1;")),
      await call(ws, "edit_file", edit("b.js", "export const a = 1;")),
      await call(ws, "read_file", '{"path":"src/a.js"}'),
      await call(ws, "read_file", '{"path":"b.js"}'),
    ]) {
      expect(answer, answer.content).toMatchObject({ ok: false, code: "symlink" });
    }
    expect(await snapshot(outside)).toEqual(before);
  });

  // Not a model's attack: no tool of chapters 7 or 8 makes a link. Another process swapping a
  // folder between edit_file's path check and its write is chapter 12's and 14's lesson, so the
  // escapes are recorded (ATTACK_REPORT=1) and every call is only required to be answered.
  it(
    `a folder swapped for a link mid-call by another process: recorded (${RACE_TRIALS} edits)`,
    async () => {
      const { ws, outside, at } = await fixture();
      await writeFile(at("src", "f.txt"), "one\n");
      await writeFile(path.join(outside, "f.txt"), "one\n");
      const swapper = new Worker("swap-folder.ts", [ws, "src", outside]);
      expect(await swapper.nextLine(), swapper.stderr).toBe("ready");
      let escapes = 0;
      const codes = new Map<string, number>();
      for (let trial = 0; trial < RACE_TRIALS; trial++) {
        const answer = await call(ws, "edit_file", edit("src/f.txt", "one", "two"));
        const code = answer.ok ? "ok" : (answer.code ?? "error");
        codes.set(code, (codes.get(code) ?? 0) + 1);
        if ((await readFile(path.join(outside, "f.txt"), "utf8")) !== "one\n") {
          escapes++;
          await writeFile(path.join(outside, "f.txt"), "one\n");
        }
        await writeFile(path.join(outside, "f.txt"), "one\n");
        await writeFile(at("src", "f.txt"), "one\n").catch(() => undefined);
      }
      swapper.child.stdin.end();
      const swaps = await swapper.nextLine();
      await swapper.exited;
      report(
        "first-hour",
        `${chapter.label}: ${RACE_TRIALS} edits during ${swaps} swaps: ${escapes} wrote outside; answers ${[...codes].map(([c, n]) => `${c} ${n}`).join(", ")}`,
      );
      expect([...codes.values()].reduce((a, b) => a + b, 0)).toBe(RACE_TRIALS);
    },
    timeLimit(30),
  );

  it("answers at once for a FIFO and a device, without reading them", async () => {
    const { ws, at } = await fixture();
    execFileSync("mkfifo", [at("pipe")]);
    await symlink("/dev/zero", at("zero-link"));
    // A device node inside the workspace needs root (mknod); without it, the link above stands in.
    let device = false;
    try {
      execFileSync("mknod", [at("zero"), "c", "1", "5"], { stdio: "ignore" });
      device = true;
    } catch {
      // not root: no device node of our own
    }
    const fifo = at("pipe");
    const calls: Array<[string, Args, string | undefined]> = [
      ["read_file", { path: "pipe" }, fifo],
      ["edit_file", edit("pipe", "x"), fifo],
      ["read_file", { path: "zero-link" }, undefined],
      ["edit_file", edit("zero-link", "x"), undefined],
      ...(device
        ? ([
            ["read_file", { path: "zero" }, undefined],
            ["edit_file", edit("zero", "x"), undefined],
          ] as Array<[string, Args, string | undefined]>)
        : []),
    ];
    for (const [name, args, pipe] of calls) {
      const answer = await callNoHang(chapter, ws, name, args, pipe);
      expect(answer, `${name} ${JSON.stringify(args)}`).not.toBe("hung");
      expect(answer).toMatchObject({ ok: false });
    }
    const listing = await callNoHang(chapter, ws, "list_files", "{}", fifo);
    expect(listing).toMatchObject({ ok: true });
  });

  it("refuses .env, id_rsa and .npmrc, directly and through links, and never tells whether old_text occurs", async () => {
    const { ws, at } = await fixture();
    const secrets: Record<string, string> = {
      ".env": "API_KEY=sk-live-0123456789\n",
      ".ssh/id_rsa": "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEA\n",
      ".npmrc": "//registry.npmjs.org/:_authToken=npm_0123456789\n",
      "config/server.PEM": "-----BEGIN PRIVATE KEY-----\nMIIE\n",
    };
    for (const [name, text] of Object.entries(secrets)) {
      await mkdir(path.dirname(at(name)), { recursive: true });
      await writeFile(at(name), text);
    }
    // A link may rename a secret (notes.txt -> .env) or disguise one (.env.local -> src/a.js).
    await symlink(".env", at("notes.txt"));
    await symlink(".ssh", at("keys"));
    await symlink("../.npmrc", at("src", "settings.ini"));
    await symlink("src/a.js", at(".env.local"));
    const before = await snapshot(ws);

    const paths: Array<[string, string]> = [
      [".env", "sk-live"],
      ["./.env", "sk-live"],
      ["src/../.env", "sk-live"],
      [".env/", "sk-live"],
      ["notes.txt", "sk-live"],
      [".ssh/id_rsa", "BEGIN OPENSSH"],
      ["keys/id_rsa", "BEGIN OPENSSH"],
      [".npmrc", "_authToken"],
      ["src/settings.ini", "_authToken"],
      ["config/server.PEM", "BEGIN PRIVATE"],
      [".env.local", "export const a"],
    ];
    for (const [file, present] of paths) {
      const hit = await call(ws, "edit_file", edit(file, present));
      const miss = await call(ws, "edit_file", edit(file, "zz-not-in-the-file-zz"));
      expect(hit, `${file}: ${hit.content}`).toMatchObject({ ok: false, code: "secret_file" });
      // The refusal must read the same whether old_text occurs or not: no oracle for the bytes.
      expect({ code: hit.code, content: hit.content }).toEqual({
        code: miss.code,
        content: miss.content,
      });
      const read = await call(ws, "read_file", { path: file });
      expect(read, `${file}: ${read.content}`).toMatchObject({ ok: false, code: "secret_file" });
      for (const value of Object.values(secrets)) {
        expect(read.content + hit.content).not.toContain(value.split("\n")[1] || value);
      }
    }
    expect(await snapshot(ws)).toEqual(before);
  });

  it(
    "edits a 50 MB file in seconds, every other byte kept; read_file refuses it",
    async () => {
      const { ws, at } = await fixture();
      const size = 50_000_000;
      const bytes = Buffer.alloc(size, "0123456789abcdefghijklmnopqrstuvwxyz;\n");
      bytes.write("UNIQUE_MARKER", size / 2);
      await writeFile(at("big.txt"), bytes);
      const expected = Buffer.concat([
        bytes.subarray(0, size / 2),
        Buffer.from("replaced"),
        bytes.subarray(size / 2 + "UNIQUE_MARKER".length),
      ]);
      const started = Date.now();
      const answer = await call(ws, "edit_file", edit("big.txt", "UNIQUE_MARKER", "replaced"));
      report("first-hour", `${chapter.label}: 50 MB edit took ${Date.now() - started} ms`);
      expect(answer, answer.content).toMatchObject({ ok: true });
      expect(sha256(await readFile(at("big.txt")))).toBe(sha256(expected));
      expect(await call(ws, "read_file", { path: "big.txt" })).toMatchObject({
        ok: false,
        code: "file_too_large",
      });
    },
    timeLimit(30),
  );

  // Found here, fixed (chapters 3, 7 and 8, src/tools/edit-file.ts): edit_file decoded the file with
  // readFile(absolute, "utf8") and writes the decoded string back, so every byte that is not
  // UTF-8, anywhere in the file, becomes U+FFFD (EF BF BD): an edit of line 1 rewrites the Latin-1
  // "é" of line 2. It should refuse a file that is not UTF-8 (as chapter 12's apply_patch does) or
  // splice the new bytes into the old ones. Chapter 9's page lists this for apply_patch; no page
  // of chapters 3, 7 or 8 says it of edit_file.
  test("keeps every byte it did not replace in a file that is not UTF-8", async () => {
    const { ws, at } = await fixture();
    await writeFile(at("latin1.js"), LATIN1);
    const answer = await call(ws, "edit_file", edit("latin1.js", "const a = 1;", "const a = 2;"));
    const after = await readFile(at("latin1.js"));
    // Refused and unchanged, or changed exactly where asked.
    expect(after.toString("hex")).toBe((answer.ok ? LATIN1_EDITED : LATIN1).toString("hex"));
  });

  it("keeps CRLF line ends, a BOM and a lone CR byte for byte", async () => {
    const { ws, at } = await fixture();
    await writeFile(at("crlf.txt"), "\ufeffone\r\ntwo\r\nthree\rfour\r\n");
    const answer = await call(ws, "edit_file", edit("crlf.txt", "two\r\n", "TWO\r\nextra\r\n"));
    expect(answer.ok).toBe(true);
    expect((await readFile(at("crlf.txt"))).toString("hex")).toBe(
      Buffer.from("\ufeffone\r\nTWO\r\nextra\r\nthree\rfour\r\n").toString("hex"),
    );
    // old_text written with \n does not match a CRLF file: refused, nothing written.
    const lf = await call(ws, "edit_file", edit("crlf.txt", "one\nTWO", "x"));
    expect(lf).toMatchObject({ ok: false, code: "no_match" });
  });

  it('writes "$&", "$\'", "$`", "$$" and "$1" in new_text as they are', async () => {
    const { ws, at } = await fixture();
    await writeFile(at("dollars.js"), "const x = OLD; // $& stays\n");
    const newText = "$& $' $` $$ $1 $<name>";
    const answer = await call(ws, "edit_file", edit("dollars.js", "OLD", newText));
    expect(answer.ok).toBe(true);
    expect(await readFile(at("dollars.js"), "utf8")).toBe(`const x = ${newText}; // $& stays\n`);
    expect((await call(ws, "edit_file", edit("dollars.js", "$& stays", "$'"))).ok).toBe(true);
    expect(await readFile(at("dollars.js"), "utf8")).toBe(`const x = ${newText}; // $'\n`);
  });

  // Found here, fixed (chapters 3, 7 and 8, src/tools/edit-file.ts): the "exactly once" check counted with
  // text.split(old_text), which finds only occurrences that do not overlap. In "}\n}\n}\n",
  // old_text "}\n}" occurs at offsets 0 and 2, split counts 1, and the first is replaced without
  // a word: the model may have meant the other one. It should answer ambiguous_match (count with
  // indexOf from each match's start + 1) and write nothing.
  test("refuses old_text whose occurrences overlap as ambiguous", async () => {
    const { ws, at } = await fixture();
    await writeFile(at("braces.js"), "  }\n}\n}\n");
    const answer = await call(ws, "edit_file", edit("braces.js", "}\n}", "}"));
    expect(answer).toMatchObject({ ok: false, code: "ambiguous_match" });
    expect(await readFile(at("braces.js"), "utf8")).toBe("  }\n}\n}\n");
  });

  it("refuses NUL bytes in a path before anything is opened", async () => {
    const { ws, base } = await fixture();
    const before = await snapshot(base);
    for (const [name, args] of [
      ["read_file", '{"path":"src/a.js\\u0000.txt"}'],
      ["read_file", '{"path":"\\u0000"}'],
      [
        "edit_file",
        '{"path":"src/a.js\\u0000../../outside/victim.js","old_text":"a","new_text":"b"}',
      ],
      ["list_files", '{"path":"src\\u0000"}'],
    ] as const) {
      const answer = await call(ws, name, args);
      expect(answer, answer.content).toMatchObject({ ok: false, code: "path_escape" });
      expect(answer.line).not.toMatch(RAW_CONTROL);
    }
    expect(await snapshot(base)).toEqual(before);
  });

  it("answers very long paths at once, and changes nothing", async () => {
    const { ws, base } = await fixture();
    const before = await snapshot(base);
    const deep = "a/".repeat(50_000) + "x.js"; // 100,000 characters
    const longName = "x".repeat(300) + ".js"; // one name over NAME_MAX
    const up = "../".repeat(30_000) + "etc/passwd";
    const roundabout = "src/" + "../src/".repeat(10_000) + "a.js"; // inside, after all
    const lengths: number[] = [];
    for (const file of [deep, longName, up]) {
      for (const [name, args] of [
        ["read_file", { path: file }],
        ["edit_file", edit(file, "x")],
        ["list_files", { path: file }],
      ] as const) {
        const answer = await callNoHang(chapter, ws, name, args);
        expect(answer).not.toBe("hung");
        if (answer === "hung") continue;
        expect(answer.ok).toBe(false);
        expect(answer.line).not.toMatch(RAW_CONTROL);
        lengths.push(answer.content.length, answer.line.length);
      }
    }
    report("first-hour", `${chapter.label}: long-path answers up to ${Math.max(...lengths)} chars`);
    const read = await call(ws, "read_file", { path: roundabout });
    expect(read.ok, read.content).toBe(true);
    expect(await snapshot(base)).toEqual(before);
  });

  it("shows terminal escapes in paths and arguments as codes on the tool-call line", async () => {
    const { ws, at } = await fixture();
    const hostile = "evil\x1b]0;pwned\x07\x1b[2K\r\x9b31m\u202egnp.js";
    await writeFile(at("src", hostile), SOURCE);
    const newText = "\x1b[8mhidden\x1b[0m\r\x1b]52;c;Y3VybCBldmls\x07";
    for (const [name, args] of [
      ["edit_file", edit(`src/${hostile}`, "export const a = 1;", newText)],
      ["edit_file", edit(`src/${hostile}`, "not there", newText)],
      ["read_file", { path: `src/${hostile}` }],
      ["read_file", { path: `nope/${hostile}` }],
      ["list_files", { path: "src", glob: "\x1b[2J*" }],
      ["no_such_tool\x1b[2J", { path: hostile }],
      ["read_file", `{"path": "${hostile}`], // not JSON: the line shows the raw text
    ] as const) {
      const answer = await call(ws, name, args);
      expect(answer.line, JSON.stringify(answer.line)).not.toMatch(RAW_CONTROL);
    }
    expect(await readFile(at("src", hostile), "utf8")).toBe(`${newText}\n`);
  });

  it("answers duplicate keys, __proto__ and odd JSON without following a second path", async () => {
    const { ws, base } = await fixture();
    const before = await snapshot(base);
    const dup = await call(ws, "read_file", '{"path":"src/a.js","path":"../outside/secret.txt"}');
    // JSON.parse keeps the last key; the line must show the path that was used.
    expect(dup).toMatchObject({ ok: false, code: "path_escape" });
    expect(dup.line).toContain("../outside/secret.txt");
    for (const args of [
      '{"__proto__":{"path":"../outside/secret.txt"}}',
      '{"constructor":{"prototype":{"path":"../outside/secret.txt"}}}',
      '["../outside/secret.txt"]',
      '"../outside/secret.txt"',
      '{"path":["../outside/secret.txt"]}',
      "null",
      "1e999",
    ]) {
      const answer = await call(ws, "read_file", args);
      expect(answer.ok, args).toBe(false);
      expect(answer.content).not.toContain(SECRET);
    }
    expect(await snapshot(base)).toEqual(before);
  });

  it(
    `lists a tree of ${TREE_FILES} files with a symlink loop in seconds, capped at 200 paths`,
    async () => {
      const ws = path.join(tree, "ws");
      const started = Date.now();
      const answer = await callNoHang(chapter, ws, "list_files", "{}");
      report(
        "first-hour",
        `${chapter.label}: list_files of the tree took ${Date.now() - started} ms`,
      );
      expect(answer).not.toBe("hung");
      if (answer === "hung") return;
      const lines = answer.content.split("\n");
      expect(lines[0]).toBe(`${TREE_FILES} file(s) in the workspace:`);
      expect(lines).toHaveLength(202);
      expect(lines.at(-1)).toBe(
        `... ${TREE_FILES - 200} more files not shown; narrow with ${
          chapter === CH7 ? "path" : "glob or path"
        }`,
      );
      expect(answer.content).not.toMatch(/secret\.txt|loop\/|up\//);
      // loop -> . stays inside: it is the root again. up -> .. leaves: refused.
      const loop = await callNoHang(chapter, ws, "list_files", { path: "loop" });
      expect(loop).toMatchObject({ ok: true });
      for (const folder of ["up", "up/outside", "out", "loop/loop/up"]) {
        const answer = await callNoHang(chapter, ws, "list_files", { path: folder });
        expect(answer, folder).toMatchObject({ ok: false, code: "symlink" });
      }
    },
    timeLimit(20),
  );
});

// ------------------------------------------------------------------------------------------
describe("attack: chapter 8's main prints edit_file's answer through visible()", () => {
  it("shows no raw terminal control on stdout, whatever the file is called", async () => {
    const { ws, at } = await fixture();
    const hostile = "evil\x1b]0;pwned\x07\x1b[2K\r\x9b31m\u202egnp.js";
    await writeFile(at("src", hostile), SOURCE);
    const script: Script = {
      name: "first-hour-escapes",
      description: "test: edit_file on a file whose name is terminal escapes",
      steps: [
        {
          expect: { lastMessageRole: "user" },
          reply: {
            content: "Editing.",
            toolCalls: [
              {
                id: "edit_ok",
                name: "edit_file",
                arguments: JSON.stringify(
                  edit(`src/${hostile}`, "export const a = 1;", "\x1b[8m\x1b]52;c;eA==\x07"),
                ),
              },
              {
                id: "edit_refused",
                name: "edit_file",
                arguments: JSON.stringify(edit(`src/${hostile}`, "not there", "\x1b[2J")),
              },
            ],
          },
        },
        { expect: { toolResultFor: "edit_refused" }, reply: { content: "Done." } },
      ],
    };
    const model = await startOfflineModel({ script });
    try {
      vi.stubEnv("OPENAI_BASE_URL", model.baseURL);
      vi.stubEnv("OPENAI_API_KEY", model.apiKey);
      vi.stubEnv("AGENT_MODEL", model.model);
      vi.stubEnv("NO_COLOR", "1");
      // main reads .env from the current folder: an empty one, not the developer's.
      vi.spyOn(process, "cwd").mockReturnValue(await scratch("first-hour-cwd"));
      let stdout = "";
      vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
        stdout += String(chunk);
        return true;
      });
      vi.spyOn(process.stderr, "write").mockImplementation(() => true);
      const code = await main8(["--repo", ws, "Change the file."]);
      vi.restoreAllMocks();
      expect(code, stdout).toBe(0);
      expect(stdout).toContain("→ edit_file  Edited src/evil\\x1b]0;pwned\\x07");
      expect(stdout).toContain("failed: Error [no_match]");
      expect(stdout.replaceAll("\n", ""), JSON.stringify(stdout)).not.toMatch(RAW_CONTROL);
    } finally {
      await model.close();
    }
  });
});

// ------------------------------------------------------------------------------------------
describe("attack: a hostile model against chapter 3's lexical tools", () => {
  const call = CH3.call.bind(CH3);

  it('refuses "..", absolute, "~" and "~/" paths for read_file and edit_file, and changes nothing', async () => {
    const { ws, base, outside } = await fixture();
    const before = await snapshot(base);
    const escapes = [
      "..",
      "../outside/victim.js",
      "src/../../outside/victim.js",
      "./../outside/victim.js",
      "src/a.js/../../../outside/victim.js",
      "src/./../../outside/./victim.js",
      "../".repeat(30_000) + "etc/passwd",
      path.join(outside, "victim.js"),
      "/etc/passwd",
      "//etc/passwd",
      "~",
      "~/.ssh/id_rsa",
    ];
    for (const file of escapes) {
      for (const [name, args] of [
        ["read_file", { path: file }],
        ["edit_file", edit(file, "export const a = 1;")],
      ] as const) {
        const answer = await call(ws, name, args);
        expect(answer, `${name} ${file.slice(0, 60)}`).toMatchObject({
          ok: false,
          code: "path_escape",
        });
        expect(answer.content).not.toContain(SECRET);
      }
    }
    // list_files takes no path: one sent anyway is dropped by the schema, not followed.
    const listing = await call(ws, "list_files", '{"path":"../"}');
    expect(listing).toMatchObject({ ok: true, content: "1 file(s):\nsrc/a.js" });
    expect(await snapshot(base)).toEqual(before);
  });

  it("symlinks that lead outside: the documented gap (recorded, not asserted)", async () => {
    const { ws, outside, at } = await fixture();
    await symlink(path.join(outside, "victim.js"), at("link.js"));
    await symlink(outside, at("out"));
    await symlink(path.join(outside, "made-by-the-model.js"), at("dangling.js"));
    await symlink("loop", at("loop"));
    const before = await snapshot(outside);
    const results: string[] = [];
    for (const [name, args] of [
      ["read_file", { path: "out/secret.txt" }],
      ["edit_file", edit("link.js", "export const a = 1;")],
      ["edit_file", edit("out/victim.js", "export const a = 1;")],
      ["edit_file", edit("dangling.js", "x")],
      ["read_file", { path: "loop/x.js" }],
      ["list_files", "{}"],
    ] as const) {
      const answer = await call(ws, name, args);
      const leaked = answer.content.includes(SECRET) ? " (secret shown)" : "";
      results.push(
        `${name} ${JSON.stringify(args)}: ${answer.ok ? "ok" : (answer.code ?? "error")}${leaked}`,
      );
    }
    const after = await snapshot(outside);
    const changed = Object.keys({ ...before, ...after }).filter((k) => before[k] !== after[k]);
    report(
      "first-hour",
      `chapter 3 symlink gap: ${results.join("; ")}; outside changed: ${changed.join(", ") || "nothing"}`,
    );
  });

  it("a FIFO inside the workspace: recorded (chapter 7 adds the check), the reader released", async () => {
    const { ws, at } = await fixture();
    execFileSync("mkfifo", [at("pipe")]);
    const outcomes: string[] = [];
    for (const [name, args] of [
      ["read_file", { path: "pipe" }],
      ["edit_file", edit("pipe", "x")],
    ] as const) {
      const answer = await callNoHang(CH3, ws, name, args, at("pipe"), 1000);
      outcomes.push(
        `${name}: ${answer === "hung" ? "no answer within 1 s" : answer.ok ? "ok" : answer.code}`,
      );
    }
    report("first-hour", `chapter 3 FIFO: ${outcomes.join("; ")}`);
    // list_files never opens a file, so a FIFO cannot stop it.
    expect(await within(call(ws, "list_files", "{}"), 3000)).toMatchObject({ ok: true });
  });

  it("secret files: no guard until chapter 7 (recorded)", async () => {
    const { ws, at } = await fixture();
    await writeFile(at(".env"), "API_KEY=sk-live-0123456789\n");
    const read = await call(ws, "read_file", { path: ".env" });
    const hit = await call(ws, "edit_file", edit(".env", "sk-live", "sk-live"));
    const miss = await call(ws, "edit_file", edit(".env", "zz-not-there", "x"));
    report(
      "first-hour",
      `chapter 3 .env: read ${read.ok ? "shown" : read.code}, edit oracle ${hit.content === miss.content ? "closed" : "open"}`,
    );
  });

  it('writes "$&", "$\'", "$`" and "$$" in new_text as they are, and keeps CRLF and a BOM', async () => {
    const { ws, at } = await fixture();
    await writeFile(at("d.js"), "\ufeffx = OLD;\r\ny = 2;\r\n");
    const newText = "$& $' $` $$ $1";
    expect((await call(ws, "edit_file", edit("d.js", "OLD", newText))).ok).toBe(true);
    expect((await readFile(at("d.js"))).toString("hex")).toBe(
      Buffer.from(`\ufeffx = ${newText};\r\ny = 2;\r\n`).toString("hex"),
    );
  });

  // Fixed, as in chapters 7 and 8 (see above): bytes that are not UTF-8 become U+FFFD.
  test("keeps every byte it did not replace in a file that is not UTF-8", async () => {
    const { ws, at } = await fixture();
    await writeFile(at("latin1.js"), LATIN1);
    const answer = await call(ws, "edit_file", edit("latin1.js", "const a = 1;", "const a = 2;"));
    const after = await readFile(at("latin1.js"));
    expect(after.toString("hex")).toBe((answer.ok ? LATIN1_EDITED : LATIN1).toString("hex"));
  });

  // Fixed, as in chapters 7 and 8 (see above): overlapping occurrences are counted once.
  test("refuses old_text whose occurrences overlap as ambiguous", async () => {
    const { ws, at } = await fixture();
    await writeFile(at("braces.js"), "  }\n}\n}\n");
    const answer = await call(ws, "edit_file", edit("braces.js", "}\n}", "}"));
    expect(answer).toMatchObject({ ok: false, code: "ambiguous_match" });
    expect(await readFile(at("braces.js"), "utf8")).toBe("  }\n}\n}\n");
  });

  it(
    "edits a 50 MB file with every other byte kept",
    async () => {
      const { ws, at } = await fixture();
      const size = 50_000_000;
      const bytes = Buffer.alloc(size, "0123456789abcdefghijklmnopqrstuvwxyz;\n");
      bytes.write("UNIQUE_MARKER", size / 2);
      await writeFile(at("big.txt"), bytes);
      const answer = await call(ws, "edit_file", edit("big.txt", "UNIQUE_MARKER", "replaced"));
      expect(answer.ok).toBe(true);
      bytes.write("replaced", size / 2);
      const expected = Buffer.concat([
        bytes.subarray(0, size / 2 + "replaced".length),
        bytes.subarray(size / 2 + "UNIQUE_MARKER".length),
      ]);
      expect(sha256(await readFile(at("big.txt")))).toBe(sha256(expected));
    },
    timeLimit(30),
  );

  it("answers NUL bytes and very long paths, and changes nothing", async () => {
    const { ws, base } = await fixture();
    const before = await snapshot(base);
    for (const [name, args] of [
      ["read_file", '{"path":"src/a.js\\u0000.txt"}'],
      ["edit_file", '{"path":"src/a.js\\u0000","old_text":"a","new_text":"b"}'],
      ["read_file", { path: "a/".repeat(50_000) + "x.js" }],
      ["edit_file", edit("x".repeat(300) + ".js", "x")],
    ] as const) {
      const answer = await callNoHang(CH3, ws, name, args);
      expect(answer).not.toBe("hung");
      expect(answer).toMatchObject({ ok: false });
      if (answer !== "hung") expect(answer.line).not.toMatch(RAW_CONTROL);
    }
    expect(await snapshot(base)).toEqual(before);
  });

  it("shows terminal escapes in paths and arguments as codes on the tool-call line", async () => {
    const { ws, at } = await fixture();
    const hostile = "evil\x1b]0;pwned\x07\x1b[2K\r\x9b31m\u202egnp.js";
    await writeFile(at("src", hostile), SOURCE);
    for (const [name, args] of [
      ["edit_file", edit(`src/${hostile}`, "export const a = 1;", "\x1b[8m")],
      ["edit_file", edit(`src/${hostile}`, "not there", "\x1b[8m")],
      ["read_file", { path: `nope/${hostile}` }],
      ["no_such_tool\x1b[2J", { path: hostile }],
    ] as const) {
      const answer = await call(ws, name, args);
      expect(answer.line, JSON.stringify(answer.line)).not.toMatch(RAW_CONTROL);
    }
  });

  it(
    `lists a tree of ${TREE_FILES} files with a symlink loop: finishes (no cap, by design)`,
    async () => {
      const ws = path.join(tree, "ws");
      const started = Date.now();
      const answer = await callNoHang(CH3, ws, "list_files", "{}");
      expect(answer).not.toBe("hung");
      if (answer === "hung") return;
      expect(answer.ok).toBe(true);
      expect(answer.content.split("\n")[0]).toBe(`${TREE_FILES} file(s):`);
      report(
        "first-hour",
        `chapter 3: list_files of the tree took ${Date.now() - started} ms, ${answer.content.length} chars, outside listed: ${/secret\.txt/.test(answer.content)}`,
      );
    },
    timeLimit(20),
  );
});

// ------------------------------------------------------------------------------------------
describe("attack: chapter 8's search_text, beside edit_file, with a hostile regular expression", () => {
  // Found here, fixed (chapter 8, src/tools/search-text.ts, compileQuery): regex=true compiled the model's
  // pattern with new RegExp and runs it on each file's text, on the main thread, with no limit.
  // search_text {"query":"(a+)+$","regex":true} over a file holding the line "a" x 40 + "!"
  // backtracks for longer than the universe is old: the event loop is blocked, so the call is
  // never answered and not even Ctrl-C (a SIGINT handler is JavaScript) can stop the agent. It
  // should answer, e.g. by running the pattern on V8's linear-time engine (flag "l" behind
  // --enable-experimental-regexp-engine), in a worker with a deadline, or by refusing nested
  // quantifiers. Run in a child process, so the hang is killed after 5 s instead of this test.
  test(
    "answers a catastrophic-backtracking pattern within 5 s",
    async () => {
      const { ws, at } = await fixture();
      await writeFile(at("src", "long.txt"), "a".repeat(40) + "!\n");
      const chapter = path.resolve(HERE, "../../chapters/08-workspace-search/src/tools");
      const code = `
      const { searchTextTool } = await import(${JSON.stringify(pathToFileURL(path.join(chapter, "search-text.ts")).href)});
      const { runToolCall } = await import(${JSON.stringify(pathToFileURL(path.join(chapter, "run-tool-call.ts")).href)});
      const call = { id: "redos", function: { name: "search_text", arguments: '{"query":"(a+)+$","regex":true}' } };
      const result = await runToolCall([searchTextTool], call, { cwd: ${JSON.stringify(ws)}, signal: new AbortController().signal });
      process.stdout.write(JSON.stringify(result));`;
      const outcome = await new Promise<{ killed: boolean; stdout: string }>((resolve) => {
        execFile(
          process.execPath,
          ["--import", TSX, "--input-type=module", "-e", code],
          { timeout: 5000 },
          (error, stdout) => resolve({ killed: error?.killed ?? false, stdout }),
        );
      });
      report(
        "first-hour",
        `chapter 8 search_text (a+)+$: ${outcome.killed ? "no answer in 5 s, killed" : outcome.stdout}`,
      );
      expect(outcome.killed).toBe(false);
      expect(outcome.stdout).toContain('"tool_call_id":"redos"');
    },
    timeLimit(20),
  );
});

// ------------------------------------------------------------------------------------------
// Inside the workspace, but not the model's to change: .git/config runs programs for the user
// (core.fsmonitor, core.hooksPath, an alias). list_files hides .git/; edit_file in chapters 3, 7
// and 8 does not refuse it. Chapter 9's page lists "nothing keeps a patch out of .git/" for
// apply_patch, and chapter 12 closes it; no page of chapters 3, 7 or 8 says it of edit_file.
// Recorded, not asserted: no page promises it.
describe.each([CH3, CH7, CH8])(
  "attack: $label's edit_file on .git/config (recorded)",
  (chapter) => {
    it("reports whether the edit went through", async () => {
      const { ws, at } = await fixture();
      await mkdir(at(".git"));
      await writeFile(at(".git", "config"), "[core]\n\trepositoryformatversion = 0\n");
      const answer = await chapter.call(
        ws,
        "edit_file",
        edit(".git/config", "[core]\n", "[core]\n\tfsmonitor = touch /tmp/agent-was-here\n"),
      );
      const written = (await readFile(at(".git", "config"), "utf8")).includes("fsmonitor");
      report(
        "first-hour",
        `${chapter.label}: edit_file .git/config: ${answer.ok ? "ok" : answer.code}, fsmonitor written: ${written}`,
      );
    });
  },
);
