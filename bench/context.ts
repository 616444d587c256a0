// What every section of pnpm bench is given, and what it gives back.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Row } from "./report.ts";

export interface BenchContext {
  /** --quick: small sizes and few rounds, to check the bench runs; the numbers mean little. */
  quick: boolean;
  /** A temp folder for this run, removed at the end. */
  scratch: string;
  /** dist/apply-patch.mjs as scripts/build-cli.ts builds it, built fresh into scratch. */
  bundle: string;
  /** The newest chapter's src/apply-patch-cli.ts, which the bundle was built from. */
  cliSource: string;
}

export interface SectionResult {
  rows: Row[];
  /** Everything measured, for bench/results/latest.json and the chart. */
  data: Record<string, unknown>;
}

/** A fresh folder under the scratch folder. */
export function scratchDir(context: BenchContext, name: string): string {
  const dir = join(context.scratch, name);
  mkdirSync(dir, { recursive: true });
  return dir;
}
