// Attack: several processes patch one big file through the command line at once, each with
// --expect of the hash it read. Every change whose process reported success must be in the file:
// the hash guard's promise, across processes. (A 3 MB file makes each write slow, which is what
// opened the gap between the second hash check and the rename.)
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CLI, report, SCALE, scratch, timeLimit, Worker } from "./attack-kit.ts";

const PROCESSES = 3;
const ROUNDS = 2 * SCALE;

describe("attack: lost updates between processes", () => {
  it(
    `keeps every change a process reported as applied (${PROCESSES} processes × ${ROUNDS} patches, 3 MB file)`,
    async () => {
      const root = await scratch("lost-update");
      const base = Array.from({ length: 3_000 }, (_, i) => `filler line ${i} ${"x".repeat(1_000)}`);
      await writeFile(path.join(root, "big.txt"), base.join("\n") + "\n");

      const workers = Array.from(
        { length: PROCESSES },
        (_, i) => new Worker("cli-appender.ts", [CLI, root, "big.txt", `p${i}`, String(ROUNDS)]),
      );
      for (const worker of workers) expect(await worker.nextLine(), worker.stderr).toBe("ready");
      for (const worker of workers) worker.send("go");
      const outcomes = (
        await Promise.all(workers.map(async (worker) => (await worker.nextLine()) ?? worker.stderr))
      ).flatMap((line) => JSON.parse(line) as { line: string; success: boolean; code?: string }[]);

      const applied = outcomes.filter((o) => o.success).map((o) => o.line);
      const final = (await readFile(path.join(root, "big.txt"), "utf8")).split("\n");
      const inFile = final.filter((line) => /^p\d+-\d+$/.test(line));
      const lost = applied.filter((line) => !inFile.includes(line));
      const refusals = outcomes.filter((o) => !o.success).map((o) => o.code);
      report(
        "lost-update",
        `${outcomes.length} patches, ${applied.length} reported applied, ${lost.length} of those lost`,
      );
      expect(refusals.every((code) => code === "file_changed")).toBe(true);
      expect(
        { lost, applied: applied.length, trials: outcomes.length },
        `${lost.length} of ${applied.length} reported successes are missing from the file`,
      ).toEqual({ lost: [], applied: applied.length, trials: outcomes.length });
      expect(inFile.sort()).toEqual(applied.sort());
      expect(final.slice(0, base.length)).toEqual(base);
    },
    timeLimit(60),
  );
});
