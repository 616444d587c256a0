// `pnpm bench -- --quick` runs every section end to end and writes its three results: the table as
// Markdown, everything as JSON, the chart as SVG. No timing is asserted (the machine is shared):
// only that the bench runs, measures what it says, and writes what the site reads.
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

interface Results {
  meta: { command: string; chapter: string };
  rows: Array<{ section: string; verdict: string; value: number | null }>;
}

function runBench(out: string): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", "scripts/bench.ts", "--quick", "--out", out],
      { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] },
    );
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, output }));
  });
}

const temps: string[] = [];
afterAll(async () => {
  await Promise.all(temps.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe("pnpm bench -- --quick", () => {
  it(
    "runs every section and writes the table, the JSON and the chart",
    { timeout: 300_000 },
    async () => {
      const out = await mkdtemp(path.join(tmpdir(), "bench-quick-"));
      temps.push(out);
      const run = await runBench(out);
      expect(run.status, run.output).toBe(0);

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
        ]),
      );
      for (const r of results.rows) expect(["PASS", "MISS", "info", "n/a"]).toContain(r.verdict);
      // Rows with a target were measured (a missing reference tool would make them n/a).
      const judged = results.rows.filter((r) => r.verdict === "PASS" || r.verdict === "MISS");
      expect(judged.length).toBeGreaterThan(0);

      const markdown = await readFile(path.join(out, "quick.md"), "utf8");
      expect(markdown).toContain(
        "| Section | Measure | Ours | Reference | Result | Target | Verdict |",
      );
      const svg = await readFile(path.join(out, "quick.svg"), "utf8");
      expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^>]*>[\s\S]*<\/svg>\n$/);
    },
  );
});
