import { chmod, stat } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { applyPatch } from "../src/patch/apply-patch.ts";
import { patch, workspace } from "./apply-patch-fixtures.ts";

describe("writing files", () => {
  it("keeps a file's permission bits", async () => {
    const root = await workspace({ "run.sh": "echo old\n" });
    await chmod(path.join(root, "run.sh"), 0o755);
    await applyPatch(patch("*** Update File: run.sh", "@@", "-echo old", "+echo new"), {
      cwd: root,
    });
    expect((await stat(path.join(root, "run.sh"))).mode & 0o777).toBe(0o755);
  });
});
