// dist/apply-patch.mjs, the bundled CLI that `pnpm apply-patch` and the bin run (scripts/build-cli.ts):
// it must behave exactly like the chapter's TypeScript CLI run with tsx, run when started through a
// symlink, and never run old code: it rebuilds itself when a source is newer or a newer chapter has
// the CLI, and only then. Each test builds its own bundle in a temp folder; the repository's dist/
// is never touched.
import { spawn } from "node:child_process";
import {
  cp,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  symlink,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildCliBundle } from "../../scripts/build-cli.ts";
import { newestChapterFile } from "../../scripts/lib/chapters.ts";

const CLI = newestChapterFile("src/apply-patch-cli.ts")!;
const TSX = import.meta.resolve("tsx");

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function run(args: string[], cwd: string, stdin?: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, stdout, stderr }));
    child.stdin.end(stdin ?? "");
  });
}

const temps: string[] = [];
async function tempDir(name: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), `bundle-${name}-`));
  temps.push(dir);
  return dir;
}
afterAll(async () => {
  await Promise.all(temps.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function files(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of await readdir(root, { recursive: true, encoding: "utf8" })) {
    if (name.startsWith(".agent")) continue; // backups are named by run id, which differs
    const full = path.join(root, name);
    if ((await stat(full)).isFile()) out[name] = await readFile(full, "utf8");
  }
  return out;
}

const patch = (...lines: string[]): string =>
  ["*** Begin Patch", ...lines, "*** End Patch", ""].join("\n");

describe("the bundled apply-patch CLI", { timeout: 120_000 }, () => {
  let bundle: string;
  beforeAll(async () => {
    bundle = path.join(await tempDir("out"), "apply-patch.mjs");
    await buildCliBundle({ outFile: bundle });
  });

  const cases: Array<{ name: string; args: string[]; stdin?: string }> = [
    {
      name: "a patch that applies (exit 0)",
      args: [patch("*** Update File: a.txt", "@@", "-a", "+A", "*** Add File: n.txt", "+n")],
    },
    {
      name: "a hunk that does not match (exit 1, the report on stderr)",
      args: [patch("*** Update File: a.txt", "@@", "-zzz", "+A")],
    },
    { name: "--json, from stdin", args: ["--json", "-"], stdin: patch("*** Delete File: b.txt") },
    { name: "a usage error (exit 2)", args: ["one", "two"] },
    { name: "--help", args: ["--help"] },
  ];
  for (const { name, args, stdin } of cases) {
    it(`does what the tsx-run CLI does: ${name}`, async () => {
      const [viaTsx, viaBundle] = await Promise.all([tempDir("tsx"), tempDir("bundle")]);
      for (const dir of [viaTsx, viaBundle]) {
        await writeFile(path.join(dir, "a.txt"), "a\n");
        await writeFile(path.join(dir, "b.txt"), "b\n");
      }
      const expected = await run(["--import", TSX, CLI, ...args], viaTsx, stdin);
      const actual = await run([bundle, ...args], viaBundle, stdin);
      expect(actual).toEqual(expected);
      expect(await files(viaBundle)).toEqual(await files(viaTsx));
    });
  }

  it("runs when started through a symlink, as a bin is", async () => {
    const dir = await tempDir("bin");
    await symlink(bundle, path.join(dir, "apply-patch"));
    expect(await run([path.join(dir, "apply-patch"), "--help"], dir)).toMatchObject({
      status: 0,
      stdout: expect.stringMatching(/^usage: apply-patch /),
    });
  });
});

describe("a stale bundle", { timeout: 120_000 }, () => {
  /** A chapters folder of its own, so the test can edit a CLI without touching the repository. */
  async function chapterCopy(chapters: string, slug: string, usage: string): Promise<string> {
    const dir = path.join(chapters, slug);
    await mkdir(dir, { recursive: true });
    await cp(path.dirname(CLI), path.join(dir, "src"), { recursive: true });
    // The chapter's packages (the diff package), where esbuild looks for them.
    await symlink(
      path.join(path.dirname(CLI), "..", "node_modules"),
      path.join(dir, "node_modules"),
    );
    await setUsage(path.join(dir, "src", "apply-patch-cli.ts"), usage);
    return path.join(dir, "src", "apply-patch-cli.ts");
  }
  async function setUsage(cli: string, usage: string): Promise<void> {
    const text = await readFile(cli, "utf8");
    const edited = text.replace(/(const USAGE =\s*)"[^"]*"/, `$1${JSON.stringify(usage)}`);
    if (edited === text) throw new Error(`no USAGE constant in ${cli}`);
    await writeFile(cli, edited);
  }
  const builtAt = async (bundle: string): Promise<number> => (await stat(bundle)).mtimeMs;

  it("rebuilds when a source is newer or a newer chapter has the CLI, and only then", async () => {
    const chapters = path.join(await tempDir("chapters"), "chapters");
    const cli = await chapterCopy(chapters, "07-first", "usage: first");
    const bundle = path.join(await tempDir("out"), "apply-patch.mjs");
    await buildCliBundle({ outFile: bundle, chaptersDir: chapters });
    const help = async (): Promise<string> => (await run([bundle, "--help"], chapters)).stdout;

    expect(await help()).toBe("usage: first\n");
    const fresh = await builtAt(bundle);
    expect(await help()).toBe("usage: first\n");
    expect(await builtAt(bundle)).toBe(fresh); // a fresh bundle is not rebuilt

    await setUsage(cli, "usage: edited");
    expect(await help()).toBe("usage: edited\n");
    expect(await builtAt(bundle)).toBeGreaterThan(fresh);

    await chapterCopy(chapters, "08-second", "usage: second");
    expect(await help()).toBe("usage: second\n");
    const manifest = JSON.parse(await readFile(`${bundle}.json`, "utf8")) as { entry: string };
    expect(manifest.entry).toBe(path.join(chapters, "08-second", "src", "apply-patch-cli.ts"));
  });
});
