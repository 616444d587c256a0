// Exercise "Finish the job": `apply-patch --remaining FILE` saves the result's remaining_patch in
// FILE when something failed, so the work can be completed with the command line alone; FILE
// exists afterwards exactly when work remains.
import assert from "node:assert/strict";
import { access, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

interface Cli {
  main(
    argv: string[],
    io: {
      stdout(t: string): void;
      stderr(t: string): void;
      readStdin(): Promise<string | undefined>;
    },
  ): Promise<number>;
}

// "x = 1" occurs twice in a.txt, so its hunk is ambiguous; b.txt's hunk is clean.
const AMBIGUOUS = "x = 1\nother\nx = 1\n";
const A_UPDATE = "*** Update File: a.txt\n@@\n-x = 1\n+x = 2\n";
const PATCH = `*** Begin Patch\n${A_UPDATE}*** Update File: b.txt\n@@\n-old\n+new\n*** End Patch\n`;

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

export default async function check(chapterDir: string): Promise<void> {
  const cli = (await import(pathToFileURL(join(chapterDir, "src/apply-patch-cli.ts")).href)) as Cli;
  const dir = await mkdtemp(join(tmpdir(), "remaining-file-"));
  try {
    const workspace = join(dir, "ws");
    const rest = join(dir, "rest.patch");
    await mkdir(workspace);
    await writeFile(join(workspace, "a.txt"), AMBIGUOUS);
    await writeFile(join(workspace, "b.txt"), "old\n");
    let err = "";
    const io = {
      stdout: () => {},
      stderr: (t: string) => void (err += t),
      readStdin: async () => undefined,
    };

    const first = await cli.main(["--cwd", workspace, "--remaining", rest, PATCH], io);
    assert.equal(
      first,
      1,
      `a patch with one failing file should exit 1 (got ${first}); stderr:\n${err}`,
    );
    assert.equal(
      await readFile(join(workspace, "b.txt"), "utf8"),
      "new\n",
      "the clean file is still written",
    );
    assert.ok(
      await exists(rest),
      "--remaining FILE should hold the remaining patch after a failure",
    );
    assert.equal(
      await readFile(rest, "utf8"),
      `*** Begin Patch\n${A_UPDATE}*** End Patch\n`,
      "FILE should hold exactly the result's remaining_patch: only a.txt's update",
    );

    // Fix the cause (the duplicate line), then apply what remained, from the file.
    await writeFile(join(workspace, "a.txt"), "x = 1\nother\n");
    err = "";
    const second = await cli.main(["--cwd", workspace, "--remaining", rest, rest], io);
    assert.equal(
      second,
      0,
      `the remaining patch should now apply (got ${second}); stderr:\n${err}`,
    );
    assert.equal(await readFile(join(workspace, "a.txt"), "utf8"), "x = 2\nother\n");
    assert.equal(
      await exists(rest),
      false,
      "when nothing remains, FILE should be gone, so an old remaining patch is never taken for new",
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
