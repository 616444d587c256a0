import { realpath, rm } from "node:fs/promises";
import { makeTempDir } from "@build-agent/shared/test-helpers";
import { afterEach, beforeEach } from "vitest";
import type { ToolContext } from "../src/tools/define-tool.ts";

/** A fresh empty workspace per test, and a ToolContext pointing at it. */
export function useTempWorkspace(): { root: () => string; context: () => ToolContext } {
  let root = "";
  beforeEach(async () => {
    // The real path: the tools report paths against the workspace's real root (macOS's /tmp is a link).
    root = await realpath(await makeTempDir("ch07-tools-"));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });
  return {
    root: () => root,
    context: () => ({ cwd: root, signal: new AbortController().signal }),
  };
}
