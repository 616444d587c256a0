import { readFile } from "node:fs/promises";
import path from "node:path";
import { color } from "@build-agent/shared/terminal";
import { structuredPatch } from "diff";
import { MANIFEST_NAME, type BackupManifest } from "./backups.ts";
import { sha256 } from "../fs/file-hash.ts";
import { visible } from "../terminal/visible-text.ts";

/** One file as it was before the run and as it is now (null: did not exist). */
export interface RunChange {
  path: string;
  before: string | null;
  after: string | null;
  /** Hash of the bytes on disk now; null when the file is gone. */
  sha256: string | null;
}

/**
 * What a run changed, from the backups apply_patch keeps: the first backup
 * of a path holds its bytes from before the run, the disk holds them now.
 * No manifest means no patch was applied.
 */
export async function collectRunChanges(cwd: string, runId: string): Promise<RunChange[]> {
  const backupDir = path.join(cwd, ".agent", "backups", runId);
  const manifest = await readManifest(path.join(backupDir, MANIFEST_NAME));
  const changes = new Map<string, RunChange>();
  for (const patch of manifest?.patches ?? []) {
    for (const file of patch.files) {
      if (changes.has(file.path)) continue;
      const before =
        file.backup === null ? null : await readText(path.join(backupDir, file.backup));
      changes.set(file.path, { path: file.path, before, after: null, sha256: null });
    }
  }
  for (const change of changes.values()) {
    const bytes = await readBytes(path.join(cwd, change.path));
    change.after = bytes?.toString("utf8") ?? null;
    change.sha256 = bytes === null ? null : sha256(bytes);
  }
  return [...changes.values()].filter((change) => change.before !== change.after);
}

/** A coloured unified diff of one change, ending with the file's new hash. */
export function formatRunChange(change: RunChange): string {
  // The path and the lines are the model's and the workspace's text: written out, then coloured.
  const patch = structuredPatch(
    change.before === null ? "/dev/null" : `a/${visible(change.path)}`,
    change.after === null ? "/dev/null" : `b/${visible(change.path)}`,
    visible(change.before ?? "", { lines: true }),
    visible(change.after ?? "", { lines: true }),
  );
  const lines = [color.bold(`--- ${patch.oldFileName}`), color.bold(`+++ ${patch.newFileName}`)];
  for (const hunk of patch.hunks) {
    lines.push(
      color.cyan(`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`),
    );
    for (const line of hunk.lines) {
      if (line.startsWith("+")) lines.push(color.green(line));
      else if (line.startsWith("-")) lines.push(color.red(line));
      else lines.push(line);
    }
  }
  const hash = change.sha256 === null ? "deleted" : `sha256 ${change.sha256}`;
  lines.push(color.dim(`${visible(change.path)}: ${hash}`));
  return lines.join("\n");
}

async function readManifest(file: string): Promise<BackupManifest | undefined> {
  const text = await readText(file);
  return text === null ? undefined : (JSON.parse(text) as BackupManifest);
}

async function readText(file: string): Promise<string | null> {
  return (await readBytes(file))?.toString("utf8") ?? null;
}

async function readBytes(file: string): Promise<Buffer | null> {
  try {
    return await readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}
