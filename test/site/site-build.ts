// The browser test needs the site built from the code as it is now; building it takes half a
// minute. A build leaves a stamp: the SHA-256 of everything a build reads (the docs, every chapter,
// scripts/, shared/, the lockfile). When the stamp matches, the last build is this build, and its
// dead-link check passed (the stamp is written only after a build succeeds); otherwise the site is
// built again. A fresh clone, CI included, always builds.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join, relative, sep } from "node:path";
import { promisify } from "node:util";
import { DOCS_DIR, ROOT } from "./site-pages.ts";

export const DIST_DIR = join(DOCS_DIR, ".vitepress", "dist");
const STAMP = join(DIST_DIR, ".inputs-sha256");
const INPUTS = ["docs", "chapters", "scripts", "shared", "package.json", "pnpm-lock.yaml"];
// What a build writes or never reads: its outputs, caches, installed packages, agent runs.
// The build lock (below) too: it holds the pid of the process that is building.
const NOT_INPUTS = new Set([
  "node_modules",
  "dist",
  "cache",
  "generated",
  ".agent",
  ".site-build.lock",
]);

/** One hash over the paths and bytes of every file a site build reads. */
export function siteInputsHash(root = ROOT): string {
  const hash = createHash("sha256");
  const add = (path: string): void => {
    const entries = readdirSync(path, { withFileTypes: true }).sort((a, b) =>
      a.name < b.name ? -1 : 1,
    );
    for (const entry of entries) {
      if (NOT_INPUTS.has(entry.name)) continue;
      const full = join(path, entry.name);
      if (entry.isDirectory()) add(full);
      else if (entry.isFile()) {
        hash.update(relative(root, full).split(sep).join("/")).update("\0");
        hash.update(readFileSync(full)).update("\0");
      }
    }
  };
  for (const input of INPUTS) {
    const full = join(root, input);
    if (!existsSync(full)) continue;
    if (input.includes(".")) hash.update(input).update("\0").update(readFileSync(full));
    else add(full);
  }
  return hash.digest("hex");
}

// Several test files need the built site (browser.test.ts, reader-aids.test.ts,
// code-archive.test.ts) and run in parallel workers: one builds while the others wait, since two
// builds into one dist/ would break each other. The lock is a folder (mkdir is atomic) holding the
// builder's pid: a lock whose process is gone (a run that was killed) is taken over at once, and
// one older than any build, in case the pid was reused.
const LOCK = join(DOCS_DIR, ".vitepress", ".site-build.lock");
/**
 * How long a test file's beforeAll may wait for the built site: a build, 1 to 8 minutes on a
 * loaded two-core machine, plus waiting for another file's build to finish.
 */
export const SITE_BUILD_TIMEOUT_MS = 20 * 60_000;
const STALE_LOCK_MS = 20 * 60_000;

function lockIsStale(): boolean {
  const age = Date.now() - (statSync(LOCK, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
  if (age > STALE_LOCK_MS) return true;
  const pidFile = join(LOCK, "pid");
  const pid = existsSync(pidFile) ? Number(readFileSync(pidFile, "utf8")) : 0;
  if (!Number.isInteger(pid) || pid <= 0) return age > 5_000; // still being written
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}

async function withBuildLock<T>(work: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      mkdirSync(LOCK);
      writeFileSync(join(LOCK, "pid"), String(process.pid));
      break;
    } catch {
      let stale = false;
      try {
        stale = lockIsStale();
      } catch {
        // The lock went away while we looked: try again.
      }
      if (stale) rmSync(LOCK, { recursive: true, force: true });
      else await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
  try {
    return await work();
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

/** Builds the site unless the last successful build read exactly these inputs. */
export async function ensureSiteBuilt(): Promise<"built" | "up to date"> {
  return withBuildLock(async () => {
    const inputs = siteInputsHash();
    if (existsSync(STAMP) && readFileSync(STAMP, "utf8") === inputs) return "up to date";
    await promisify(execFile)("pnpm", ["docs:build"], {
      cwd: ROOT,
      maxBuffer: 16 * 1024 * 1024,
    });
    writeFileSync(STAMP, inputs);
    return "built";
  });
}
