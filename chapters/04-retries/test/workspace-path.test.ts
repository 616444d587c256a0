import path from "node:path";
import { describe, expect, it } from "vitest";
import { resolveInWorkspace } from "../src/fs/workspace-path.ts";
import { ToolError } from "../src/tools/tool-error.ts";

const root = path.resolve("/work/project");

function refusal(relPath: string): ToolError {
  try {
    resolveInWorkspace(root, relPath);
  } catch (error) {
    if (error instanceof ToolError) return error;
    throw error;
  }
  throw new Error(`expected a refusal for ${relPath}`);
}

describe("resolveInWorkspace", () => {
  it("resolves a relative path inside the workspace, harmless segments included", () => {
    expect(resolveInWorkspace(root, "src/cart.mjs")).toBe(path.join(root, "src", "cart.mjs"));
    expect(resolveInWorkspace(root, "./src/../src/cart.mjs")).toBe(
      path.join(root, "src", "cart.mjs"),
    );
    expect(resolveInWorkspace(root, ".")).toBe(root);
  });

  it("accepts names that merely start with two dots", () => {
    expect(resolveInWorkspace(root, "..notes")).toBe(path.join(root, "..notes"));
  });

  it("refuses absolute and home-directory paths, with the text the model reads", () => {
    for (const relPath of ["/etc/passwd", "~", "~/.ssh/id_rsa"]) {
      const error = refusal(relPath);
      expect(error.code).toBe("path_escape");
      expect(error.message).toBe(
        `Path "${relPath}" is not relative to the workspace root (${root}).`,
      );
      expect(error.hint).toBe('Use a path relative to the workspace root, such as "src/index.ts".');
    }
  });

  it("refuses .. escapes, also when they pass through folders inside", () => {
    for (const relPath of ["..", "../secret.txt", "src/../../secret.txt"]) {
      const error = refusal(relPath);
      expect(error.code).toBe("path_escape");
      expect(error.message).toBe(
        `Path "${relPath}" resolves outside the workspace root (${root}).`,
      );
      expect(error.hint).toBe(
        'Remove the ".." segments that leave the workspace. Use a path relative to the workspace root, such as "src/index.ts".',
      );
    }
  });
});
