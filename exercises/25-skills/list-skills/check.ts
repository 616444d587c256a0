// Exercise "List the skills": `--list-skills --repo PATH` prints each skill found, one line each,
// with its SKILL.md and the tokens its line in the prompt costs, says which skills it skipped and
// why, and exits 0 without a model.
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

interface MainModule {
  main(argv: string[]): Promise<number>;
}
interface TokenModule {
  countTextTokens(text: string): number;
}

const load = <T>(chapterDir: string, file: string) =>
  import(pathToFileURL(join(chapterDir, file)).href) as Promise<T>;

async function writeSkill(root: string, name: string, frontMatter: string): Promise<void> {
  const dir = join(root, ".agents/skills", name);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, "SKILL.md"), `---\n${frontMatter}\n---\n\nDo the thing.\n`);
}

export default async function check(chapterDir: string): Promise<void> {
  const { main } = await load<MainModule>(chapterDir, "src/main.ts");
  const { countTextTokens } = await load<TokenModule>(chapterDir, "src/context/token-counter.ts");

  const workspace = await mkdtemp(join(tmpdir(), "list-skills-"));
  const home = await mkdtemp(join(tmpdir(), "list-skills-home-")); // never the real home
  const saved = { HOME: process.env.HOME, NO_COLOR: process.env.NO_COLOR };
  const write = { out: process.stdout.write, err: process.stderr.write };
  let stdout = "";
  let stderr = "";
  try {
    const description = "How this project runs its checks. Use it before you run them.";
    await writeSkill(workspace, "run-checks", `name: run-checks\ndescription: ${description}`);
    await writeSkill(workspace, "deploy", "name: deploy");
    process.env.HOME = home;
    process.env.NO_COLOR = "1";
    process.stdout.write = ((chunk: string | Uint8Array) => {
      stdout += String(chunk);
      return true;
    }) as typeof process.stdout.write;
    process.stderr.write = ((chunk: string | Uint8Array) => {
      stderr += String(chunk);
      return true;
    }) as typeof process.stderr.write;
    let code: number;
    try {
      code = await main(["--list-skills", "--repo", workspace]);
    } finally {
      process.stdout.write = write.out;
      process.stderr.write = write.err;
    }

    assert.equal(code, 0, `--list-skills should exit 0; it printed:\n${stdout}${stderr}`);
    const tokens = countTextTokens(`- run-checks: ${description}`);
    const line = stdout.split("\n").find((l) => l.startsWith("run-checks")) ?? "(no line)";
    assert.ok(
      line.includes(".agents/skills/run-checks/SKILL.md") && line.includes(`(${tokens} tokens)`),
      `a line per skill: its name, its SKILL.md and what its prompt line costs (${tokens} tokens); it reads: ${line}`,
    );
    assert.ok(
      `${stdout}${stderr}`.includes("skipped skill .agents/skills/deploy/SKILL.md"),
      `a skipped skill is said, as before a run; the output was:\n${stdout}${stderr}`,
    );
    assert.ok(!stdout.includes("# Skills"), "--list-skills lists the skills, not the prompt");
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
    await rm(workspace, { recursive: true, force: true });
    await rm(home, { recursive: true, force: true });
  }
}
