// Runs every vendored Codex apply_patch scenario the way the upstream harness does: copy input/
// into a fresh temp dir, apply the patch text there (as one argv argument), ignore the exit status,
// and compare the whole tree, byte for byte, with expected/. Only `.agent/` (the tool's backups)
// is ignored. Scenarios 010 and 011 are our documented deviations: Codex overwrites an existing
// file, we refuse with file_exists and change nothing.
//
// Each scenario runs in process through the CLI's main(), the same code `pnpm apply-patch` runs,
// at a fraction of a cold start. Two of them (a success and a refusal) also run through the real
// `pnpm apply-patch` command, which proves the command itself: pnpm, the chapter lookup, argv,
// the working directory, the exit status.
import { spawn } from "node:child_process";
import { cp, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { newestChapterFile } from "../../scripts/lib/chapters.ts";

const REPO_ROOT = fileURLToPath(new URL("../..", import.meta.url));
const SCENARIOS = path.join(REPO_ROOT, "test/conformance/codex-apply-patch/scenarios");
const DEVIATIONS = new Set([
  "010_move_overwrites_existing_destination",
  "011_add_overwrites_existing_file",
]);
const THROUGH_PNPM = new Set([
  "002_multiple_operations",
  "010_move_overwrites_existing_destination",
]);

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** A tree as upstream snapshots it: every directory and every file's bytes, by relative path. */
type Tree = Map<string, Buffer | "dir">;

async function snapshot(root: string, ignoreTopLevel: string[] = []): Promise<Tree> {
  const tree: Tree = new Map();
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      const rel = path.relative(root, full).split(path.sep).join("/");
      if (dir === root && ignoreTopLevel.includes(entry.name)) continue;
      if (entry.isDirectory()) {
        tree.set(rel, "dir");
        await walk(full);
      } else {
        tree.set(rel, await readFile(full));
      }
    }
  };
  await walk(root).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "ENOENT") throw error;
  });
  return tree;
}

/** Readable form for a diff when a scenario fails. */
function describeTree(tree: Tree): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [rel, value] of [...tree].sort(([a], [b]) => a.localeCompare(b))) {
    out[rel] = value === "dir" ? "<dir>" : JSON.stringify(value.toString("utf8"));
  }
  return out;
}

/** `pnpm --dir <repo> apply-patch`: pnpm records the caller's cwd (INIT_CWD), where the patch applies. */
function runThroughPnpm(cwd: string, patchText: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn("pnpm", ["--silent", "--dir", REPO_ROOT, "apply-patch", patchText], {
      cwd,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

interface CliModule {
  main(
    argv: string[],
    io: {
      stdout: (text: string) => void;
      stderr: (text: string) => void;
      readStdin: () => Promise<string | undefined>;
    },
  ): Promise<number>;
}

/** The same CLI `pnpm apply-patch` runs (the newest chapter's), called in process in `cwd`. */
async function runInProcess(cwd: string, patchText: string): Promise<Run> {
  const cli = newestChapterFile("src/apply-patch-cli.ts");
  if (cli === undefined) throw new Error("no chapter has src/apply-patch-cli.ts");
  const { main } = (await import(cli)) as CliModule;
  let stdout = "";
  let stderr = "";
  const status = await main(["--cwd", cwd, patchText], {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    readStdin: async () => undefined,
  });
  return { status, stdout, stderr };
}

const scenarioNames = (await readdir(SCENARIOS, { withFileTypes: true }))
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

const temps: string[] = [];
afterAll(async () => {
  await Promise.all(temps.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe.concurrent("Codex apply_patch conformance scenarios", { timeout: 120_000 }, () => {
  it("has all 23 upstream scenarios", () => {
    expect(scenarioNames).toHaveLength(23);
  });

  for (const name of scenarioNames) {
    const how = THROUGH_PNPM.has(name) ? " (through pnpm apply-patch)" : "";
    it(name + how, async () => {
      const scenario = path.join(SCENARIOS, name);
      const cwd = await mkdtemp(path.join(tmpdir(), `conformance-${name.slice(0, 3)}-`));
      temps.push(cwd);
      await cp(path.join(scenario, "input"), cwd, { recursive: true }).catch(
        (error: NodeJS.ErrnoException) => {
          if (error.code !== "ENOENT") throw error;
        },
      );
      const before = await snapshot(cwd);
      const patchText = await readFile(path.join(scenario, "patch.txt"), "utf8");

      const run = await (THROUGH_PNPM.has(name) ? runThroughPnpm : runInProcess)(cwd, patchText);

      const after = await snapshot(cwd, [".agent"]);
      if (DEVIATIONS.has(name)) {
        expect(run.stderr).toContain("[file_exists]");
        expect(run.status).toBe(1);
        expect(describeTree(after)).toEqual(describeTree(before));
      } else {
        const expected = await snapshot(path.join(scenario, "expected"));
        expect(describeTree(after), run.stderr).toEqual(describeTree(expected));
      }
    });
  }
});
