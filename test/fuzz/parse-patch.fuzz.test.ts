// Fuzzes the patch engine with broken patches: valid ones (the Codex conformance scenarios and a
// few of our own) mutated by inserting, deleting, duplicating and swapping lines and bytes. Each
// case goes to parsePatch and to applyPatch in a throwaway workspace, and must end in one of the
// engine's typed errors or a result, never an exception; nothing may be written outside the
// workspace; and every file that changed must be one the result reports.
//
//   pnpm test                 2,000 cases with the fixed seed (a few seconds)
//   pnpm fuzz                 20,000 cases with a random seed
//   FUZZ_SEED=123 FUZZ_CASES=50000 pnpm fuzz     reproduce or extend a run
//
// The seed is printed; a failure names the seed, the case and the mutated patch.
import { createHash, randomInt } from "node:crypto";
import { constants } from "node:fs";
import {
  access,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  readlink,
  rm,
  symlink,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { newestChapterFile } from "../../scripts/lib/chapters.ts";

const REPO_ROOT = fileURLToPath(new URL("../..", import.meta.url));
const SCENARIOS = path.join(REPO_ROOT, "test/conformance/codex-apply-patch/scenarios");
const DEFAULT_SEED = 0x5eed_2024;
const DEFAULT_CASES = 2_000;

const seed =
  process.env.FUZZ_SEED === "random"
    ? randomInt(2 ** 31)
    : Number(process.env.FUZZ_SEED ?? DEFAULT_SEED);
const cases = Number(process.env.FUZZ_CASES ?? DEFAULT_CASES);

// The engine as `pnpm apply-patch` runs it: the newest chapter's.
interface PatchErrorLike extends Error {
  code: string;
}
interface ApplyResult {
  success: boolean;
  changed: { op: string; path: string; from?: string; sha256?: string }[];
  failures: { path: string; code: string; message: string }[];
}
const engine = {
  parsePatch: (await import(chapterFile("src/patch/parse-patch.ts"))) as {
    parsePatch(text: string): unknown;
  },
  applyPatch: (await import(chapterFile("src/patch/apply-patch.ts"))) as {
    applyPatch(text: string, options: { cwd: string; atomic?: boolean }): Promise<ApplyResult>;
  },
  errors: (await import(chapterFile("src/patch/patch-errors.ts"))) as {
    PatchError: new (...args: never[]) => PatchErrorLike;
  },
};

function chapterFile(file: string): string {
  const found = newestChapterFile(file);
  if (found === undefined) throw new Error(`no chapter has ${file}`);
  return found;
}

/** mulberry32: a tiny seeded PRNG, so a run can be repeated exactly from its seed. */
function mulberry32(state: number): () => number {
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Seed {
  name: string;
  patch: string;
  /** The workspace's files before the patch, by relative path (a null value is a folder). */
  files: Record<string, string | null>;
}

async function loadSeeds(): Promise<Seed[]> {
  const seeds: Seed[] = [];
  const scenarios = await readdir(SCENARIOS, { withFileTypes: true });
  for (const name of scenarios
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort()) {
    const dir = path.join(SCENARIOS, name);
    const files: Record<string, string | null> = {};
    const walk = async (sub: string): Promise<void> => {
      const entries = await readdir(path.join(dir, "input", sub), { withFileTypes: true }).catch(
        () => [],
      );
      for (const entry of entries) {
        const rel = path.posix.join(sub, entry.name);
        if (entry.isDirectory()) {
          files[rel] = null;
          await walk(rel);
        } else {
          files[rel] = await readFile(path.join(dir, "input", rel), "utf8");
        }
      }
    };
    await walk("");
    seeds.push({ name, patch: await readFile(path.join(dir, "patch.txt"), "utf8"), files });
  }
  // Forms the scenarios lack: a move with anchors and End of File, a whole-file replacement,
  // the envelope repairs (fence, CRLF), a unified-diff header.
  const app = "class App {\n  render() {\n    return 1;\n  }\n}\n";
  seeds.push(
    {
      name: "own_move_anchor_eof",
      patch:
        "*** Begin Patch\n*** Update File: src/app.ts\n*** Move to: lib/app.ts\n@@ class App {\n" +
        "@@   render() {\n-    return 1;\n+    return 2;\n   }\n }\n*** End of File\n*** End Patch\n",
      files: { src: null, "src/app.ts": app },
    },
    {
      name: "own_whole_file",
      patch: "*** Begin Patch\n*** Update File: notes.txt\nfirst\nsecond\n*** End Patch\n",
      files: { "notes.txt": "old\n".repeat(20) },
    },
    {
      name: "own_fenced_crlf",
      patch:
        "```diff\r\n*** Begin Patch\r\n*** Update File: a.txt\r\n@@ -1,2 +1,2 @@\r\n a\r\n-b\r\n+c\r\n" +
        "*** Add File: b.txt\r\n+new\r\n*** End Patch\r\n```\r\n",
      files: { "a.txt": "a\nb\n" },
    },
  );
  return seeds;
}

// Lines a mutation may insert: markers, headers naming paths inside and outside the workspace,
// hunk lines, and noise.
function interestingLines(outside: string): string[] {
  return [
    "*** Begin Patch",
    "*** End Patch",
    "*** End of File",
    "*** Add File: fresh.txt",
    "*** Add File: ../escaped.txt",
    `*** Add File: ${outside}/absolute.txt`,
    "*** Add File: link/through-link.txt",
    "*** Add File: .agent/state.txt",
    "*** Update File: ../sentinel.txt",
    "*** Update File: link/sentinel.txt",
    "*** Delete File: ../sentinel.txt",
    "*** Delete File: link",
    "*** Move to: ../moved-out.txt",
    "*** Move to: link/moved.txt",
    "*** Move to: moved.txt",
    "*** Update File: nested/deeper/x.txt",
    "Update File: a.txt",
    "@@",
    "@@ class App {",
    "@@ -1,3 +1,4 @@",
    " ",
    "-",
    "+",
    "+added line",
    "-line2",
    " line1",
    "```",
    "<<'EOF'",
    "",
    "\t",
    "\u0000",
    "\uFEFF*** Begin Patch",
    "é\u200b😀",
  ];
}

type Rng = () => number;
const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)]!;

/** One or two mutations of the patch text, by line or by character. */
function mutate(text: string, rng: Rng, pool: readonly string[]): string {
  for (let n = rng() < 0.7 ? 1 : 2; n > 0; n--) {
    if (rng() < 0.6) {
      const lines = text.split("\n");
      const at = Math.floor(rng() * (lines.length + 1));
      const other = Math.floor(rng() * lines.length);
      const kind = Math.floor(rng() * 4);
      if (kind === 0) lines.splice(at, 0, pick(rng, pool));
      else if (kind === 1) lines.splice(Math.min(at, lines.length - 1), 1);
      else if (kind === 2)
        lines.splice(at, 0, ...lines.slice(other, other + 1 + Math.floor(rng() * 3)));
      else [lines[at], lines[other]] = [lines[other] ?? "", lines[at] ?? ""];
      text = lines.join("\n");
    } else {
      const at = Math.floor(rng() * (text.length + 1));
      const kind = Math.floor(rng() * 3);
      const chars = "\n\r\t +-@*: /.\\\u0000é😀";
      if (kind === 0) text = text.slice(0, at) + pick(rng, [...chars]) + text.slice(at);
      else if (kind === 1) text = text.slice(0, at) + text.slice(at + 1 + Math.floor(rng() * 4));
      else
        text = text.slice(0, at) + text.slice(at, at + 1 + Math.floor(rng() * 20)) + text.slice(at);
    }
  }
  return text;
}

/** Every entry under `root` (symlinks not followed), with a hash of each file's bytes. */
async function snapshot(root: string, skip: string[] = []): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      const rel = path.relative(root, full).split(path.sep).join("/");
      if (skip.includes(rel)) continue;
      const stats = await lstat(full);
      if (stats.isSymbolicLink()) out.set(rel, `link:${await readlink(full)}`);
      else if (stats.isDirectory()) {
        out.set(rel, "dir");
        await walk(full);
      } else
        out.set(
          rel,
          createHash("sha256")
            .update(await readFile(full))
            .digest("hex"),
        );
    }
  };
  await walk(root);
  return out;
}

/** The paths whose entry differs between two snapshots. */
function changedPaths(before: Map<string, string>, after: Map<string, string>): string[] {
  const paths = new Set([...before.keys(), ...after.keys()]);
  return [...paths].filter((p) => before.get(p) !== after.get(p)).sort();
}

const KNOWN_CODES = new Set([
  "invalid_patch",
  "path_escape",
  "symlink",
  "disallowed_path",
  "file_exists",
  "file_not_found",
  "not_read",
  "file_changed",
  "context_not_found",
  "ambiguous_context",
  "too_many_files",
  "too_many_changes",
  "io_error",
]);

/** What is wrong with one case's outcome; empty when nothing is. */
function judge(result: ApplyResult, changed: string[], outsideChanged: string[]): string[] {
  const problems: string[] = [];
  if (outsideChanged.length > 0)
    problems.push(`wrote outside the workspace: ${outsideChanged.join(", ")}`);
  for (const failure of result.failures) {
    if (!KNOWN_CODES.has(failure.code)) problems.push(`unknown failure code ${failure.code}`);
    // io_error wraps whatever was thrown: from the file system it names an errno (ENOTDIR, ...);
    // anything else (a TypeError) is a bug in the engine dressed up as a failure.
    if (failure.code === "io_error" && !/\bE[A-Z]{3,}\b/.test(failure.message)) {
      problems.push(`io_error without an errno: ${failure.message}`);
    }
  }
  const reported = new Set(result.changed.flatMap((c) => [c.path, c.from ?? c.path]));
  for (const file of changed) {
    // A new file's folders appear with it; they are part of the reported change.
    const covered = [...reported].some((r) => r === file || r.startsWith(`${file}/`));
    if (!covered) problems.push(`unreported change: ${file}`);
  }
  return problems;
}

/**
 * Where the workspaces go: a memory file system when there is one (Linux's /dev/shm), because
 * apply_patch syncs every file it writes to disk, and on a disk that is most of a case's time.
 */
async function fastTempFolder(): Promise<string> {
  const shm = "/dev/shm";
  const usable = await access(shm, constants.W_OK).then(
    () => true,
    () => false,
  );
  return usable ? shm : tmpdir();
}

const temps: string[] = [];
afterAll(async () => {
  await Promise.all(temps.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe("fuzzing parsePatch and applyPatch with mutated patches", () => {
  it("notices a write outside, an engine bug dressed as io_error, and an unreported change", () => {
    const result: ApplyResult = {
      success: false,
      changed: [{ op: "add", path: "nested/new.txt" }],
      failures: [
        { path: "a.txt", code: "io_error", message: "Could not write a.txt: ENOTDIR: not a dir" },
        { path: "b.txt", code: "io_error", message: "Could not write b.txt: x is undefined" },
      ],
    };
    expect(judge(result, ["b.txt", "nested", "nested/new.txt"], ["sentinel.txt"])).toEqual([
      "wrote outside the workspace: sentinel.txt",
      "io_error without an errno: Could not write b.txt: x is undefined",
      "unreported change: b.txt",
    ]);
  });

  it(`survives ${cases} mutated patches (seed ${seed})`, { timeout: 600_000 }, async () => {
    console.log(
      `fuzz: ${cases} cases, seed ${seed} (reproduce: FUZZ_SEED=${seed} FUZZ_CASES=${cases} pnpm fuzz)`,
    );
    const seeds = await loadSeeds();
    // box/ holds the workspace, a sentinel file beside it, and a folder a symlink points into.
    const box = await mkdtemp(path.join(await fastTempFolder(), "fuzz-patch-"));
    temps.push(box);
    const ws = path.join(box, "ws");
    await writeFile(path.join(box, "sentinel.txt"), "do not touch\n");
    await mkdir(path.join(box, "outside"));
    await writeFile(path.join(box, "outside", "sentinel.txt"), "do not touch either\n");
    const boxBefore = await snapshot(box, ["ws"]);
    const pool = interestingLines(path.join(box, "outside"));

    const prepare = async (s: Seed) => {
      await rm(ws, { recursive: true, force: true });
      await mkdir(ws);
      for (const [rel, text] of Object.entries(s.files)) {
        if (text === null) await mkdir(path.join(ws, rel), { recursive: true });
        else {
          await mkdir(path.dirname(path.join(ws, rel)), { recursive: true });
          await writeFile(path.join(ws, rel), text);
        }
      }
      await symlink(path.join(box, "outside"), path.join(ws, "link"));
    };

    const problems: string[] = [];
    const tally = { parsed: 0, refused: 0, applied: 0, failed: 0 };
    let prepared: Seed | undefined;
    for (let i = 0; i < cases && problems.length < 5; i++) {
      // Each case has its own stream of numbers, so case i is the same whatever ran before it.
      const rng = mulberry32((seed ^ Math.imul(i + 1, 0x9e3779b9)) >>> 0);
      const s = pick(rng, seeds);
      const text = mutate(s.patch, rng, pool);
      const atomic = rng() < 0.3;
      const where = `seed ${seed} case ${i} (${s.name}${atomic ? ", atomic" : ""}): ${JSON.stringify(text)}`;

      let parsed = true;
      try {
        engine.parsePatch.parsePatch(text);
        tally.parsed++;
      } catch (error) {
        if (!(error instanceof engine.errors.PatchError)) {
          problems.push(`parsePatch threw ${String(error)} for ${where}`);
          continue;
        }
        parsed = false;
        tally.refused++;
      }

      if (!parsed) {
        // applyPatch refuses it as well, before it looks at a single file: no snapshot needed.
        const result = await engine.applyPatch.applyPatch(text, { cwd: ws, atomic });
        if (result.changed.length > 0 || result.failures[0]?.code !== "invalid_patch") {
          problems.push(`a patch parsePatch refused was not refused as invalid_patch: ${where}`);
        }
        continue;
      }
      if (prepared !== s) await prepare(s);
      prepared = s;
      const before = await snapshot(ws, [".agent"]);
      let result: ApplyResult;
      try {
        result = await engine.applyPatch.applyPatch(text, { cwd: ws, atomic });
      } catch (error) {
        problems.push(`applyPatch threw ${String(error)} for ${where}`);
        prepared = undefined;
        continue;
      }
      const after = await snapshot(ws, [".agent"]);
      const changed = changedPaths(before, after);
      const outside = changedPaths(boxBefore, await snapshot(box, ["ws"]));
      for (const problem of judge(result, changed, outside))
        problems.push(`${problem} for ${where}`);
      if (result.success) tally.applied++;
      else tally.failed++;
      // The next case starts from the seed's files again.
      if (changed.length > 0 || after.size !== before.size) prepared = undefined;
      if (outside.length > 0) break;
    }
    console.log(`fuzz: ${JSON.stringify(tally)}`);
    expect(problems).toEqual([]);
  });
});
