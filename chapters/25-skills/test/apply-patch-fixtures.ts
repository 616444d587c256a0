// Helpers for the apply_patch tests: throwaway workspaces, whole-tree snapshots, patch texts.
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach } from "vitest";

const created: string[] = [];

afterEach(async () => {
  await Promise.all(created.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A fresh temp folder holding `files` (relative path → contents); removed after the test. */
export async function workspace(files: Record<string, string | Buffer> = {}): Promise<string> {
  const root = await mkdtemp(path.join(tmpdir(), "apply-patch-"));
  created.push(root);
  for (const [rel, contents] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await writeFile(path.join(root, rel), contents);
  }
  return root;
}

/** Every file under root as text, by "/"-separated relative path; `.agent/` left out unless asked. */
export async function tree(root: string, withAgent = false): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      const rel = path.relative(root, full).split(path.sep).join("/");
      if (!withAgent && rel === ".agent") continue;
      if (entry.isDirectory()) await walk(full);
      else out[rel] = await readFile(full, "utf8");
    }
  };
  await walk(root);
  return out;
}

/** The hash apply_patch reports and --expect takes: chapter 08's, so the tests use it too. */
export { sha256 } from "../src/fs/file-hash.ts";

/** Wraps body lines in "*** Begin Patch" / "*** End Patch". */
export function patch(...lines: string[]): string {
  return ["*** Begin Patch", ...lines, "*** End Patch", ""].join("\n");
}
