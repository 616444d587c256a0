import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach } from "vitest";
import type { ToolContext } from "../src/tools/define-tool.ts";

/** A fresh empty workspace per test, and a ToolContext pointing at it. */
export function useTempWorkspace(): { root: () => string; context: () => ToolContext } {
  let root = "";
  beforeEach(async () => {
    root = await realpath(await mkdtemp(path.join(tmpdir(), "tool-test-workspace-")));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });
  return {
    root: () => root,
    context: () => ({ cwd: root, signal: new AbortController().signal }),
  };
}
