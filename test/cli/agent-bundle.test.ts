// dist/agent.mjs, the bundled agent that `pnpm start` runs (scripts/start.mjs, scripts/build-cli.ts):
// it must behave exactly like the newest chapter's main.ts run with tsx, in every mode a person
// uses (--help, a usage error, --print-prompt, the offline demo, one task, an interactive session,
// undo); read the files beside its modules (the prompts) where they are; never load the tokenizer
// for --help; and never run old code. The comparisons build their own bundle in a temp folder;
// only the test of scripts/lib/agent-bundle.ts uses (and may rebuild) the repository's dist/.
import { cp, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyDemoRepo, DEMO_REPO_DIR } from "../../shared/src/demo-repo.ts";
import { loadScript, startOfflineModel } from "../../shared/src/offline-model/index.ts";
import { readTree, runCommand, type CommandResult } from "../../shared/src/test-helpers.ts";
import { buildCliBundle } from "../../scripts/build-cli.ts";
import { AGENT_BUNDLE, runAgent } from "../../scripts/lib/agent-bundle.ts";
import { listChapters, newestChapterFile } from "../../scripts/lib/chapters.ts";

const MAIN = newestChapterFile("src/main.ts")!;
const TSX = import.meta.resolve("tsx");
/** No model configured, whatever this machine has; no colour; no folder pnpm was started in. */
const OFFLINE = {
  NO_COLOR: "1",
  OPENAI_API_KEY: undefined,
  OPENAI_BASE_URL: undefined,
  AGENT_MODEL: undefined,
  INIT_CWD: undefined,
};

const temps: string[] = [];
async function tempDir(name: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), `agent-bundle-${name}-`));
  temps.push(dir);
  return dir;
}
async function demoCopy(): Promise<string> {
  const dir = await copyDemoRepo("agent-bundle-ws-");
  temps.push(dir);
  return dir;
}
afterAll(async () => {
  await Promise.all(temps.map((dir) => rm(dir, { recursive: true, force: true })));
});

interface Way {
  name: string;
  run(args: string[], options: { cwd: string; env?: object; input?: string }): Promise<Run>;
}
type Run = Pick<CommandResult, "code" | "stdout" | "stderr">;

const run = async (
  command: string[],
  options: { cwd: string; env?: object; input?: string },
): Promise<Run> => {
  const { code, stdout, stderr } = await runCommand(process.execPath, command, {
    cwd: options.cwd,
    env: { ...OFFLINE, ...options.env },
    input: options.input,
    timeoutMs: 120_000,
  });
  return { code, stdout, stderr };
};

/**
 * What differs between two runs of the same thing: the scratch folders, run ids and timings, and
 * what the caller names in `names` (a workspace, the offline model's address), with their names.
 */
function normalized(result: Run, names: Record<string, string> = {}): Run {
  const clean = (text: string): string => {
    for (const [value, name] of Object.entries(names)) text = text.replaceAll(value, name);
    return text
      .replaceAll(/\/tmp\/demo-repo-\w+/g, "<ws>")
      .replaceAll(/\b\d{8}-\d{6}-[0-9a-f]+\b/g, "<run>")
      .replaceAll(/\b\d+(\.\d+)? (s|ms)\b/g, "<t> $2");
  };
  return { code: result.code, stdout: clean(result.stdout), stderr: clean(result.stderr) };
}

/** The files of a workspace, without the ledger and backups (named by run id and time). */
async function files(workspace: string): Promise<Record<string, string>> {
  const tree = await readTree(workspace);
  return Object.fromEntries(Object.entries(tree).filter(([name]) => !name.startsWith(".")));
}

describe("the bundled agent", { timeout: 240_000 }, () => {
  let bundle: string;
  let viaTsx: Way;
  let viaBundle: Way;
  beforeAll(async () => {
    bundle = path.join(await tempDir("out"), "agent.mjs");
    await buildCliBundle({ bundle: "agent", outFile: bundle });
    viaTsx = {
      name: "tsx",
      run: (args, options) => run(["--import", TSX, MAIN, ...args], options),
    };
    viaBundle = { name: "bundle", run: (args, options) => run([bundle, ...args], options) };
  });

  it("prints the same usage for --help and for a bad option", async () => {
    const cwd = await tempDir("cwd");
    for (const args of [["--help"], ["--nope"], ["undo", "the", "last", "change"]]) {
      expect(await viaBundle.run(args, { cwd })).toEqual(await viaTsx.run(args, { cwd }));
    }
  });

  it("prints the same prompt and token counts for --print-prompt", async () => {
    const workspace = await demoCopy();
    const args = ["--print-prompt", "--repo", workspace];
    const actual = await viaBundle.run(args, { cwd: workspace });
    expect(actual).toEqual(await viaTsx.run(args, { cwd: workspace }));
    // The prompts are Markdown files beside the chapter's modules, read at run time.
    expect(actual.stdout).toContain("-- system prompt: ");
    expect(actual.stdout).toContain(`- Workspace root: ${workspace} `);
  });

  it("runs the same offline demo, and refuses a task offline the same way", async () => {
    const cwd = await tempDir("cwd");
    const [expected, actual] = [await viaTsx.run([], { cwd }), await viaBundle.run([], { cwd })];
    for (const result of [expected, actual]) {
      const scratch = /workspace: (\S+) \(scratch copy/.exec(result.stdout)?.[1];
      if (scratch !== undefined) temps.push(scratch);
    }
    expect(actual.code).toBe(0);
    expect(actual.stdout).toContain("check: node check.mjs → all checks passed (7)\n");
    // The demo makes its own scratch copy, at a random path that is in the prompt: the prompt's
    // token count differs by a few between any two runs.
    const tokens = (result: Run): Run => {
      const { stdout, ...rest } = normalized(result);
      return { ...rest, stdout: stdout.replace(/^tokens: \d+ in,/m, "tokens: <n> in,") };
    };
    expect(tokens(actual)).toEqual(tokens(expected));
    const task = ["fix it"];
    expect(await viaBundle.run(task, { cwd })).toEqual(await viaTsx.run(task, { cwd }));
  });

  interface ModelRun {
    result: Run;
    files: Record<string, string>;
    undo?: Run;
  }
  /**
   * Each way against an offline model of its own, on a fresh copy of the demo repository at the
   * same path (the path is in the prompt: another would count other tokens), then optionally undo.
   */
  async function withModel(
    args: (workspace: string) => string[],
    options: { input?: string; undo?: boolean } = {},
  ): Promise<ModelRun[]> {
    const workspace = path.join(await tempDir("ws"), "repo");
    const out: ModelRun[] = [];
    for (const way of [viaTsx, viaBundle]) {
      await rm(workspace, { recursive: true, force: true });
      await cp(DEMO_REPO_DIR, workspace, { recursive: true });
      const model = await startOfflineModel({ script: loadScript("fix-bug") });
      try {
        const env = {
          OPENAI_BASE_URL: model.baseURL,
          OPENAI_API_KEY: model.apiKey,
          AGENT_MODEL: model.model,
        };
        const result = await way.run(args(workspace), {
          cwd: workspace,
          env,
          input: options.input,
        });
        const done: ModelRun = {
          result: normalized(result, { [workspace]: "<ws>", [model.baseURL]: "<model>" }),
          files: await files(workspace),
        };
        if (options.undo === true) {
          const undo = await way.run(["undo", "--repo", workspace], { cwd: workspace });
          done.undo = normalized(undo, { [workspace]: "<ws>" });
        }
        out.push(done);
      } finally {
        await model.close();
      }
    }
    return out;
  }

  it("runs one task the same way, and undoes it the same way", async () => {
    const [expected, actual] = await withModel((ws) => ["--repo", ws, "fix the coupon bug"], {
      undo: true,
    });
    expect(actual!.result.stdout).toContain("result: done\n");
    expect(actual).toEqual(expected);
    expect(actual!.undo!.stdout).toBe("Undid run <run>: restored src/cart.mjs.\n");
  });

  it("runs an interactive session the same way", async () => {
    const [expected, actual] = await withModel((ws) => ["--repo", ws], {
      input: "fix the coupon bug\n/exit\n",
    });
    expect(actual!.result.stdout).toContain("result: done\n");
    expect(actual).toEqual(expected);
  });

  it("loads the tokenizer at the first count, not for --help", async () => {
    // Prints, as the process exits, whether any module of gpt-tokenizer was loaded.
    const probe = path.join(await tempDir("probe"), "probe.mjs");
    await writeFile(
      probe,
      'import { Module } from "node:module";\n' +
        'process.on("exit", () => process.stderr.write(`tokenizer loaded: ${Object.keys(Module._cache).some((file) => file.includes("gpt-tokenizer"))}\\n`));\n',
    );
    const workspace = await demoCopy();
    const withProbe = (args: string[]): Promise<Run> =>
      run(["--import", probe, bundle, ...args], { cwd: workspace });
    expect((await withProbe(["--help"])).stderr).toBe("tokenizer loaded: false\n");
    expect((await withProbe(["--print-prompt"])).stderr).toBe("tokenizer loaded: true\n");
  });
});

describe("the token counter of every chapter from 6 on", () => {
  it("loads the tokenizer only when it first counts", async () => {
    const counters = listChapters()
      .filter((chapter) => chapter.number >= 6)
      .map((chapter) => path.join(chapter.dir, "src", "context", "token-counter.ts"));
    expect(counters.length).toBeGreaterThan(0);
    // In a process of its own: emptying this worker's require cache would leave other test
    // files watching a tokenizer module that their counters no longer use.
    const script = [
      'import { Module } from "node:module";',
      'const loaded = () => Object.keys(Module._cache).some((file) => file.includes("gpt-tokenizer"));',
      `const modules = await Promise.all(${JSON.stringify(counters)}.map((file) => import(file)));`,
      "const before = loaded();",
      'const count = modules[0].countTextTokens("hello world");',
      "console.log(JSON.stringify({ before, count, after: loaded() }));",
    ].join("\n");
    const probe = path.join(await tempDir("counters"), "counters.mjs");
    await writeFile(probe, script);
    const { code, stdout, stderr } = await run(["--import", TSX, probe], {
      cwd: path.dirname(probe),
    });
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ before: false, count: 2, after: true });
  });
});

describe("a stale agent bundle", { timeout: 120_000 }, () => {
  it("rebuilds when a source is newer, and reads an edited prompt without a rebuild", async () => {
    const chapters = path.join(await tempDir("chapters"), "chapters");
    const dir = path.join(chapters, "27-copy");
    await mkdir(dir, { recursive: true });
    await cp(path.dirname(MAIN), path.join(dir, "src"), { recursive: true });
    // The chapter's packages, where esbuild (and the tokenizer's require) look for them.
    await symlink(
      path.join(path.dirname(MAIN), "..", "node_modules"),
      path.join(dir, "node_modules"),
    );
    const bundle = path.join(await tempDir("out"), "agent.mjs");
    await buildCliBundle({ bundle: "agent", outFile: bundle, chaptersDir: chapters });
    const workspace = await demoCopy();
    const agent = (args: string[]): Promise<Run> => run([bundle, ...args], { cwd: workspace });
    const builtAt = async (): Promise<number> => (await stat(bundle)).mtimeMs;
    const fresh = await builtAt();

    const role = path.join(dir, "src", "prompts", "role.md");
    await writeFile(role, "You are the edited agent.\n");
    expect((await agent(["--print-prompt"])).stdout).toMatch(/^You are the edited agent\.\n/);
    expect(await builtAt()).toBe(fresh); // read where it is: nothing to rebuild

    const cliArgs = path.join(dir, "src", "loop", "cli-args.ts");
    const text = await readFile(cliArgs, "utf8");
    const edited = text.replace("usage: pnpm start --", "usage (edited): pnpm start --");
    expect(edited).not.toBe(text);
    await writeFile(cliArgs, edited);
    expect((await agent(["--help"])).stdout).toMatch(/^usage \(edited\): pnpm start --/);
    expect(await builtAt()).toBeGreaterThan(fresh);
    const manifest = JSON.parse(await readFile(`${bundle}.json`, "utf8")) as { entry: string };
    expect(manifest.entry).toBe(path.join(dir, "src", "main.ts"));
  });
});

describe("scripts/lib/agent-bundle.ts", { timeout: 120_000 }, () => {
  it("runs the newest agent from dist/agent.mjs", async () => {
    const cwd = await tempDir("cwd");
    const result = await runAgent(["--help"], { cwd, env: OFFLINE });
    expect(result).toMatchObject({ code: 0, stdout: expect.stringMatching(/^usage: pnpm start/) });
    expect(result.stderr).toBe("");
    expect((await stat(AGENT_BUNDLE)).isFile()).toBe(true);
  });
});
