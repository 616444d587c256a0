// Exercise "A strict command line": `apply-patch --strict` refuses an update or delete without
// an --expect for that file, with a hint a command-line user can follow.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
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

const PATCH = "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+ONE\n*** End Patch\n";

export default async function check(chapterDir: string): Promise<void> {
  const cli = (await import(pathToFileURL(join(chapterDir, "src/apply-patch-cli.ts")).href)) as Cli;
  const workspace = await mkdtemp(join(tmpdir(), "strict-cli-"));
  try {
    await writeFile(join(workspace, "a.txt"), "one\n");
    let err = "";
    const io = {
      stdout: () => {},
      stderr: (t: string) => void (err += t),
      readStdin: async () => undefined,
    };

    const refused = await cli.main(["--strict", "--cwd", workspace, PATCH], io);
    assert.equal(
      refused,
      1,
      `--strict without --expect should exit 1 (got ${refused}); stderr:\n${err}`,
    );
    assert.match(err, /not_read/, "the refusal should be not_read");
    assert.match(
      err,
      /--expect a\.txt=/,
      "the hint should tell a command-line user to pass --expect a.txt=SHA256",
    );
    assert.doesNotMatch(
      err,
      /read_file/,
      "read_file is the agent's tool: a command-line user cannot call it",
    );
    assert.equal(
      await readFile(join(workspace, "a.txt"), "utf8"),
      "one\n",
      "nothing may be written",
    );

    const hash = createHash("sha256").update("one\n").digest("hex");
    err = "";
    const applied = await cli.main(
      ["--strict", "--cwd", workspace, "--expect", `a.txt=${hash}`, PATCH],
      io,
    );
    assert.equal(
      applied,
      0,
      `--strict with the right --expect should apply (got ${applied}); stderr:\n${err}`,
    );
    assert.equal(await readFile(join(workspace, "a.txt"), "utf8"), "ONE\n");
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}
