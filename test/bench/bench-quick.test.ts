// `pnpm bench -- --quick --save --out DIR` runs every section end to end and writes its three
// results there: the table as Markdown, everything as JSON, the chart as SVG. A run without --save
// writes nothing: the repository is as clean after it as before. No timing is asserted (the machine
// is shared): only that the bench runs, measures what it says, and writes only where it is told.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

interface Results {
  meta: { command: string; chapter: string };
  rows: Array<{ section: string; measure: string; verdict: string; value: number | null }>;
  tokens: { total: number; each: Record<string, number> };
  loop: { sizes: number[]; points: Array<{ messages: number }> };
}

function runBench(args: string[]): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "scripts/bench.ts", ...args], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, output }));
  });
}

/**
 * What git sees as changed, and every file where --save writes, with its time of change: git does
 * not see a change to an ignored file (bench/results/quick.*).
 */
function treeState(): string {
  const status = spawnSync("git", ["status", "--porcelain"], { cwd: ROOT, encoding: "utf8" });
  const written = [path.join("bench", "results"), path.join("docs", "public", "bench")].flatMap(
    (dir) =>
      existsSync(path.join(ROOT, dir))
        ? readdirSync(path.join(ROOT, dir)).map((name) => {
            const file = path.join(dir, name);
            return `${file} ${statSync(path.join(ROOT, file)).mtimeMs}`;
          })
        : [],
  );
  return [status.stdout, ...written].join("\n");
}

const temps: string[] = [];
afterAll(async () => {
  await Promise.all(temps.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe("pnpm bench -- --quick", () => {
  it(
    "runs every section; with --save --out DIR it writes the table, the JSON and the chart there, and without --save nothing",
    { timeout: 300_000 },
    async () => {
      const out = await mkdtemp(path.join(tmpdir(), "bench-quick-"));
      temps.push(out);
      const before = treeState();
      // Side by side, to save wall time: the CPU is the same either way.
      const [saved, plain] = await Promise.all([
        runBench(["--quick", "--save", "--out", out]),
        runBench(["--quick", "--only", "search"]),
      ]);
      expect(saved.status, saved.output).toBe(0);
      expect(plain.status, plain.output).toBe(0);
      expect(treeState()).toBe(before);
      expect(plain.output).toContain("Search: ");
      expect(plain.output).toContain("nothing written: add --save");
      expect((await readdir(out)).sort()).toEqual(["quick.json", "quick.md", "quick.svg"]);

      const results = JSON.parse(await readFile(path.join(out, "quick.json"), "utf8")) as Results;
      expect(results.meta.command).toBe("pnpm bench -- --quick");
      const sections = new Set(results.rows.map((r) => r.section));
      expect([...sections]).toEqual(
        expect.arrayContaining([
          "Start-up",
          "Engine",
          "Scaling",
          "Memory",
          "Search",
          "Loop",
          "Tokens",
          "Tracking",
        ]),
      );
      for (const r of results.rows) expect(["PASS", "MISS", "info", "n/a"]).toContain(r.verdict);
      // Rows with a target were measured (a missing reference tool would make them n/a).
      const judged = results.rows.filter((r) => r.verdict === "PASS" || r.verdict === "MISS");
      expect(judged.length).toBeGreaterThan(0);

      // The loop is timed at three sizes, one row each, every one judged.
      const loop = results.rows.filter((r) => r.section === "Loop");
      expect(loop.map((r) => r.verdict).every((v) => v === "PASS" || v === "MISS")).toBe(true);
      expect(loop).toHaveLength(3);
      expect(results.loop.points.map((p) => p.messages)).toEqual(results.loop.sizes);
      // The tokens row prices every tool a run offers, run_command among them.
      expect(Object.keys(results.tokens.each)).toEqual(
        expect.arrayContaining(["read_file", "apply_patch", "run_command", "update_plan"]),
      );
      const tokens = results.rows.find((r) => r.section === "Tokens");
      expect(tokens?.value).toBe(results.tokens.total);

      const markdown = await readFile(path.join(out, "quick.md"), "utf8");
      expect(markdown).toContain(
        "| Section | Measure | Ours | Reference | Result | Target | Verdict |",
      );
      const svg = await readFile(path.join(out, "quick.svg"), "utf8");
      expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^>]*>[\s\S]*<\/svg>\n$/);
    },
  );

  it("prints its usage for --help", async () => {
    const help = await runBench(["--help"]);
    expect(help.status, help.output).toBe(0);
    expect(help.output).toMatch(/^usage: pnpm bench/);
    expect(help.output).toContain("--save");
  });
});
