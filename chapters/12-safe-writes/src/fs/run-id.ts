/** A timestamp-based run id that sorts by time; the suffix keeps two runs in one millisecond apart. */
export function newRunId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[:.]/g, "-");
  return `${stamp}-${process.pid}-${Math.random().toString(36).slice(2, 6)}`;
}
