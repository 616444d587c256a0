import { randomBytes } from "node:crypto";

/**
 * One id per run: it names the run's backup folder and its ledger
 * (.agent/runs/<runId>.jsonl), so undo finds both. Short enough to type,
 * sorted by time (UTC, to the second), and 24 random bits keep two runs in
 * the same second apart: 20250131-142501-3f9a1c.
 */
export function newRunId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  return `${stamp}-${randomBytes(3).toString("hex")}`;
}
