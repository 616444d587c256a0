import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WorkspacePathError, resolveWorkspacePath } from "../src/fs/workspace-path.ts";

let base: string;
let root: string;
let outside: string;

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), "ws-path-")));
  root = path.join(base, "root");
  outside = path.join(base, "outside");
  await mkdir(path.join(root, "src"), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(root, "src", "a.ts"), "export {};\n");
  await writeFile(path.join(outside, "secret.txt"), "secret\n");
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

async function refusal(relPath: string): Promise<WorkspacePathError> {
  const error: unknown = await resolveWorkspacePath(root, relPath).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof WorkspacePathError)) throw new Error(`expected a refusal for ${relPath}`);
  return error;
}

describe("resolveWorkspacePath", () => {
  it("resolves an existing file", async () => {
    expect(await resolveWorkspacePath(root, "src/a.ts")).toEqual({
      absolute: path.join(root, "src", "a.ts"),
      relative: "src/a.ts",
      exists: true,
    });
  });

  it("normalises harmless segments and resolves the root itself", async () => {
    expect((await resolveWorkspacePath(root, "./src/../src/a.ts")).relative).toBe("src/a.ts");
    expect(await resolveWorkspacePath(root, ".")).toEqual({
      absolute: root,
      relative: ".",
      exists: true,
    });
    expect((await resolveWorkspacePath(root, "")).relative).toBe(".");
  });

  it("resolves a non-existent nested path through its nearest existing ancestor", async () => {
    expect(await resolveWorkspacePath(root, "src/new/deep/file.ts")).toEqual({
      absolute: path.join(root, "src", "new", "deep", "file.ts"),
      relative: "src/new/deep/file.ts",
      exists: false,
    });
  });

  it("accepts file names that merely start with two dots", async () => {
    expect((await resolveWorkspacePath(root, "..notes")).relative).toBe("..notes");
  });

  it("refuses absolute paths", async () => {
    const error = await refusal("/etc/passwd");
    expect(error.code).toBe("path_escape");
    expect(error.message).toBe(
      `Path "/etc/passwd" is absolute; only paths relative to the workspace root (${root}) are allowed.`,
    );
    expect(error.hint).toBe('Use a path relative to the workspace root, such as "src/index.ts".');
  });

  it("refuses a Windows drive path as absolute, on every system", async () => {
    expect((await refusal("C:\\Users\\you\\.ssh\\id_rsa")).message).toBe(
      `Path "C:\\Users\\you\\.ssh\\id_rsa" is absolute; only paths relative to the workspace root (${root}) are allowed.`,
    );
  });

  it("refuses home-directory paths", async () => {
    for (const relPath of ["~", "~/.ssh/id_rsa", "~\\.aws"]) {
      const error = await refusal(relPath);
      expect(error.code).toBe("path_escape");
      expect(error.message).toBe(
        `Path "${relPath}" points into a home directory; only files inside the workspace root (${root}) are allowed.`,
      );
    }
    // Only a leading "~" is a home directory: a file may be called "~notes".
    expect((await resolveWorkspacePath(root, "~notes")).relative).toBe("~notes");
  });

  it("refuses a NUL byte before any file call, and shows it as \\0", async () => {
    const error = await refusal("src/a.ts\0.txt");
    expect(error.code).toBe("path_escape");
    expect(error.message).toBe('Path "src/a.ts\\0.txt" contains a NUL byte.');
    expect(error.hint).toBe('Use a path relative to the workspace root, such as "src/index.ts".');
  });

  it("refuses .. escapes, also when they pass through real folders", async () => {
    for (const relPath of ["../outside/secret.txt", "src/../../outside/secret.txt", ".."]) {
      const error = await refusal(relPath);
      expect(error.code).toBe("path_escape");
      expect(error.message).toBe(
        `Path "${relPath}" resolves outside the workspace root (${root}).`,
      );
      expect(error.hint).toBe(
        'Remove the ".." segments that leave the workspace. Use a path relative to the workspace root, such as "src/index.ts".',
      );
    }
  });

  it("refuses a symlinked file that leads outside", async () => {
    await symlink(path.join(outside, "secret.txt"), path.join(root, "link.txt"));
    const error = await refusal("link.txt");
    expect(error.code).toBe("symlink");
    expect(error.message).toBe(
      `Path "link.txt" goes through a symlink that leads to "${path.join(outside, "secret.txt")}", outside the workspace root (${root}).`,
    );
    expect(error.hint).toBe(
      'Symlinks leading outside the workspace cannot be read or written. Use a path relative to the workspace root, such as "src/index.ts".',
    );
  });

  it("refuses a symlinked parent folder that leads outside, for existing and new files", async () => {
    await symlink(outside, path.join(root, "linked"));
    expect((await refusal("linked/secret.txt")).code).toBe("symlink");
    expect((await refusal("linked/new/file.txt")).code).toBe("symlink");
  });

  it("refuses a dangling symlink, whose target could be created outside", async () => {
    await symlink(path.join(outside, "missing.txt"), path.join(root, "dangling.txt"));
    const error = await refusal("dangling.txt");
    expect(error.code).toBe("symlink");
    expect(error.message).toBe(
      `Path "dangling.txt" goes through the symlink "dangling.txt" whose target "${path.join(outside, "missing.txt")}" cannot be resolved.`,
    );
  });

  it("refuses a path through a symlink loop as a symlink, not as a disk error", async () => {
    await symlink("loop", path.join(root, "loop"));
    for (const relPath of ["loop", "loop/a.ts", "loop/new/file.ts"]) {
      const error = await refusal(relPath);
      expect(error.code).toBe("symlink");
      expect(error.message).toBe(
        `Path "${relPath}" goes through the symlink "loop" whose target "loop" cannot be resolved.`,
      );
      expect(error.hint).toBe(
        "Broken or looping symlinks cannot be followed. Use the real path of the file instead.",
      );
    }
  });

  it("follows symlinks that stay inside the workspace", async () => {
    await symlink(path.join(root, "src"), path.join(root, "alias"));
    expect(await resolveWorkspacePath(root, "alias/a.ts")).toEqual({
      absolute: path.join(root, "src", "a.ts"),
      relative: "src/a.ts",
      exists: true,
    });
  });

  it("works when the root itself is reached through a symlink", async () => {
    const rootLink = path.join(base, "root-link");
    await symlink(root, rootLink);
    expect((await resolveWorkspacePath(rootLink, "src/a.ts")).absolute).toBe(
      path.join(root, "src", "a.ts"),
    );
  });
});
