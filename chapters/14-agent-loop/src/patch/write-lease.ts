/**
 * Write leases: one writer per file at a time, within this process. Two patches
 * to the same file run one after the other, so the second one reads the first
 * one's result (and its hash guard notices if it was built on the old bytes).
 *
 * A patch takes the leases of all its files in one sorted order. If patch 1
 * held a.ts and waited for b.ts while patch 2 held b.ts and waited for a.ts,
 * both would wait forever; with one global order that cannot happen.
 */

/** The tail of each file's queue: the promise the next writer waits for. */
const queueTails = new Map<string, Promise<void>>();

/** Waits until every path is free, holds them all, and returns the function that frees them. */
export async function acquireWriteLeases(realPaths: Iterable<string>): Promise<() => void> {
  const ordered = [...new Set(realPaths)].sort();
  const releases: (() => void)[] = [];
  for (const realPath of ordered) releases.push(await acquireOne(realPath));
  return () => {
    for (const release of releases.reverse()) release();
  };
}

async function acquireOne(realPath: string): Promise<() => void> {
  const previous = queueTails.get(realPath) ?? Promise.resolve();
  let release!: () => void;
  const mine = new Promise<void>((resolve) => (release = resolve));
  const tail = previous.then(() => mine);
  queueTails.set(realPath, tail);
  await previous;
  return () => {
    release();
    // Forget the path once nobody queued behind us, so the map does not grow forever.
    if (queueTails.get(realPath) === tail) queueTails.delete(realPath);
  };
}
