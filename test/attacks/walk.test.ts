// Patches that land where the model meant, and a workspace walk that agrees with git and survives
// odd trees (issue 21, items 6, 12, 13 and 14).
//
//   ATTACK_REPORT=1 pnpm exec vitest run test/attacks/walk.test.ts            the newest chapter
//   ATTACK_CHAPTER_DIR=/path/to/old/chapters/26-compaction ATTACK_REPORT=1 ...   "before"
import { spawnSync } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  type ApplyPatchModule,
  importChapter,
  listTree,
  report,
  SCALE,
  scratch,
  timeLimit,
} from "./attack-kit.ts";

interface WalkModule {
  walkWorkspace(
    root: string,
    start: string,
    signal?: AbortSignal,
    onSkip?: (path: string, why: string) => void,
  ): AsyncGenerator<string>;
}

/** A small deterministic generator, so a failing trial can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const heredoc = (prefix: string, body: string) =>
  `${prefix}apply_patch <<'EOF'\n*** Begin Patch\n${body}*** End Patch\nEOF\n`;

describe("attack: shell text before a heredoc", () => {
  // Codex's accepted form, then the forms its invocation tests refuse, then random prefixes.
  const refused = ["cd pkg; ", "cd pkg || ", "cd pkg | ", "echo x && ", "cd pkg && cd b && "];
  const moreRefused = ["cd pkg b && ", "echo x; cd pkg && ", "sudo ", "cd $HOME && ", "true && "];

  it(
    "never applies a patch outside the folder its cd names, and never drops shell text",
    async () => {
      const { applyPatch } = await importChapter<ApplyPatchModule>("src/patch/apply-patch.ts");
      const next = random(12);
      const words = ["cd", "pkg", "&&", ";", "||", "|", "echo", "x", "..", "'p q'", "sudo", "then"];
      const prefixes = [...refused, ...moreRefused];
      for (let i = 0; i < 20 * SCALE; i++) {
        const count = 1 + Math.floor(next() * 4);
        const picked = Array.from(
          { length: count },
          () => words[Math.floor(next() * words.length)],
        );
        prefixes.push(`${picked.join(" ")} `);
      }
      let atRoot = 0;
      let honoured = 0;
      for (const prefix of ["cd pkg && ", ...prefixes]) {
        const root = await scratch("heredoc");
        await mkdir(path.join(root, "pkg"));
        await applyPatch(heredoc(prefix, "*** Add File: new.txt\n+n\n"), { cwd: root });
        const files = await listTree(root);
        if (files.includes("new.txt")) atRoot++;
        if (prefix === "cd pkg && " && files.includes("pkg/new.txt")) honoured++;
      }
      report(
        "heredoc-prefix",
        `${prefixes.length + 1} invocations: cd pkg honoured ${honoured}/1, applied at the root ${atRoot}`,
      );
      expect(honoured).toBe(1);
      expect(atRoot).toBe(0);
    },
    timeLimit(60),
  );

  it("keeps cd .. and cd /elsewhere inside the workspace", async () => {
    const { applyPatch } = await importChapter<ApplyPatchModule>("src/patch/apply-patch.ts");
    const outside = await scratch("heredoc-outside");
    const root = path.join(outside, "ws");
    await mkdir(path.join(root, "pkg"), { recursive: true });
    const escapes = ["cd .. && ", "cd pkg/../.. && ", `cd ${outside} && `, "cd ~ && "];
    let applied = 0;
    for (const [i, prefix] of escapes.entries()) {
      const result = await applyPatch(heredoc(prefix, `*** Add File: evil${i}.txt\n+e\n`), {
        cwd: root,
      });
      if (result.success) applied++;
    }
    const written = (await listTree(outside)).filter(
      (entry) => !/^ws\/(pkg\/|\.agent\/.*)?$/.test(entry),
    );
    report(
      "heredoc-cd-escape",
      `${escapes.length} escapes tried: ${applied} reported success, ${written.length} files written`,
    );
    expect(written).toEqual([]);
    expect(applied).toBe(0);
  });
});

describe("attack: an Update of only an '@@' line", () => {
  it("is refused, not reported as a change", async () => {
    const { applyPatch } = await importChapter<ApplyPatchModule>("src/patch/apply-patch.ts");
    let accepted = 0;
    let changed = 0;
    const bodies = ["@@\n", "@@\n@@\n", "@@ class A\n", " @@\n", "-a\n+b\n@@\n"];
    for (const body of bodies) {
      const root = await scratch("empty-hunk");
      await writeFile(path.join(root, "f.txt"), "a\n");
      const result = await applyPatch(
        `*** Begin Patch\n*** Update File: f.txt\n${body}*** End Patch\n`,
        {
          cwd: root,
        },
      );
      if (result.success) accepted++;
      if ((await readFile(path.join(root, "f.txt"), "utf8")) !== "a\n") changed++;
    }
    report(
      "empty-hunk",
      `${bodies.length} patches with an empty hunk: ${accepted} reported success (${changed} changed the file)`,
    );
    expect([accepted, changed]).toEqual([0, 0]);
  });
});

/** What git lists as untracked and not ignored, with no user or system configuration. */
function gitListing(root: string): string[] {
  const git = (...args: string[]) =>
    spawnSync("git", ["-c", "core.excludesFile=/dev/null", ...args], {
      cwd: root,
      encoding: "utf8",
      env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", HOME: root },
    }).stdout;
  git("init", "-q");
  return git("ls-files", "-z", "--others", "--exclude-standard").split("\0").filter(Boolean).sort();
}

async function walkAll(module: WalkModule, root: string): Promise<string[]> {
  const files: string[] = [];
  for await (const file of module.walkWorkspace(root, ".")) files.push(file);
  return files.sort();
}

describe("attack: nested .gitignore negations against git", () => {
  const PATTERNS = [
    "*.log",
    "!keep.log",
    "build/",
    "!build/",
    "a",
    "!a",
    "/x",
    "dir/**",
    "!dir/k/",
  ];
  const MORE = ["**/deep", "*", "!*/", "!.gitignore", "k/", "!k", "*.txt", "!f.txt", "a/*", "#c"];
  const NAMES = ["a", "x", "k", "dir", "deep", "build", "sub"];
  const FILES = ["f.txt", "g.log", "keep.log", "h.md"];

  it(
    "lists exactly what git ls-files --others --exclude-standard lists",
    async () => {
      const walk = await importChapter<WalkModule>("src/tools/walk-workspace.ts");
      const next = random(21);
      const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!;
      const trials = 40 * SCALE;
      const differ: string[] = [];
      for (let trial = 0; trial < trials; trial++) {
        const root = await scratch("gitignore");
        const folders = [""];
        for (let i = 0; i < 2 + Math.floor(next() * 6); i++) {
          const folder = path.posix.join(pick(folders), pick(NAMES));
          if (!folders.includes(folder)) folders.push(folder);
        }
        for (const folder of folders) {
          await mkdir(path.join(root, folder), { recursive: true });
          for (const file of FILES)
            if (next() < 0.5) await writeFile(path.join(root, folder, file), "");
          if (next() < 0.6) {
            const rules = Array.from({ length: 1 + Math.floor(next() * 4) }, () =>
              pick([...PATTERNS, ...MORE]),
            );
            await writeFile(path.join(root, folder, ".gitignore"), rules.join("\n") + "\n");
          }
        }
        if (next() < 0.3) {
          await mkdir(path.join(root, ".git/info"), { recursive: true });
          await writeFile(
            path.join(root, ".git/info/exclude"),
            `${pick(PATTERNS)}\n${pick(MORE)}\n`,
          );
        }
        const withExclude = gitListing(root);
        const ours = await walkAll(walk, root);
        if (JSON.stringify(ours) !== JSON.stringify(withExclude)) differ.push(root);
      }
      report(
        "gitignore-vs-git",
        `${trials} random trees: ${differ.length} listed differently from git`,
      );
      expect(differ).toEqual([]);
    },
    timeLimit(120),
  );
});

describe("attack: odd trees", () => {
  it("survives a non-UTF-8 folder name and a path over the OS limit", async () => {
    const walk = await importChapter<WalkModule>("src/tools/walk-workspace.ts");
    const root = await scratch("odd-tree");
    await writeFile(path.join(root, "a.txt"), "");
    await mkdir(Buffer.concat([Buffer.from(root + "/"), Buffer.from([0xff])]));
    const name = "d".repeat(200);
    const script = `cd "$1" && for i in $(seq 25); do mkdir ${name} && cd ${name}; done`;
    expect(spawnSync("bash", ["-c", script, "bash", root]).status).toBe(0);
    let threw = 0;
    const skipped: string[] = [];
    try {
      const files: string[] = [];
      for await (const file of walk.walkWorkspace(root, ".", undefined, (_, why) =>
        skipped.push(why),
      )) {
        files.push(file);
      }
      expect(files).toEqual(["a.txt"]);
    } catch {
      threw++;
    } finally {
      spawnSync("rm", ["-rf", name], { cwd: root });
    }
    report(
      "odd-tree",
      `2 odd entries: walk threw ${threw}, skipped with a notice ${skipped.length}`,
    );
    expect(threw).toBe(0);
    expect(skipped).toEqual([
      "whose name is not valid UTF-8",
      "that could not be read (ENAMETOOLONG)",
    ]);
  });
});
