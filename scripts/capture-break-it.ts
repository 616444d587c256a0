// Captures every chapter's "break it" scenario, run for real on the chapter before (the failure)
// and on its own chapter (the refusal or the fix), into docs/outputs/break-it/, where the chapter
// page's "Break it" section includes them. test/demos/demos.test.ts re-runs each scenario and
// fails when a committed capture no longer matches what the run prints.
//
//   pnpm exec tsx scripts/capture-break-it.ts          every chapter
//   pnpm exec tsx scripts/capture-break-it.ts 11 16     only chapters 11 and 16's scenarios
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isRunnable, listChapters, ROOT, type Chapter } from "./lib/chapters.ts";
import { hasScenario, loadScenario } from "./lib/demo-scenario.ts";
import { runDemo } from "./lib/run-demo.ts";

export const BREAK_IT_DIR = join(ROOT, "docs", "outputs", "break-it");

export type BreakItRun = "previous" | "this";

/** docs/outputs/break-it/11-hash-guard.previous.txt: the scenario on chapter 10. */
export function breakItPath(owner: Chapter, run: BreakItRun): string {
  return join(BREAK_IT_DIR, `${owner.slug}.${run}.txt`);
}

/** What a page shows: the command a reader types, then everything the run printed. */
export function breakItCapture(owner: Chapter, target: Chapter, transcript: string): string {
  const command =
    target === owner
      ? `pnpm chapter ${owner.number} -- --demo`
      : `pnpm chapter ${target.number} -- --demo-of ${owner.number}`;
  return `$ ${command}\n${transcript}`;
}

async function main(): Promise<void> {
  const only = process.argv.slice(2).map(Number);
  const chapters = listChapters().filter(isRunnable);
  mkdirSync(BREAK_IT_DIR, { recursive: true });
  const quiet = { write: () => {} };
  for (const [i, owner] of chapters.entries()) {
    if (!hasScenario(owner.slug) || (only.length > 0 && !only.includes(owner.number))) continue;
    const scenario = loadScenario(owner.slug);
    const previous = chapters[i - 1];
    const runs: Array<[BreakItRun, Chapter]> = [["this", owner]];
    if (previous !== undefined && scenario.previous !== undefined)
      runs.push(["previous", previous]);
    for (const [run, target] of runs) {
      const result = await runDemo(scenario, owner, target, quiet);
      if (!result.ok)
        throw new Error(`${owner.slug} on chapter ${target.number}:\n${result.transcript}`);
      writeFileSync(breakItPath(owner, run), breakItCapture(owner, target, result.transcript));
      console.log(`wrote ${breakItPath(owner, run).slice(ROOT.length + 1)}`);
    }
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
