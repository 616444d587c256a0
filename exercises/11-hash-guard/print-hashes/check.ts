// Exercise "Chain the hashes": `apply-patch --print-hashes` prints `sha256 PATH HASH` on stderr for
// every file it wrote, so a script can guard its next patch with --expect PATH=HASH.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

interface Io {
  stdout(text: string): void;
  stderr(text: string): void;
  readStdin(): Promise<string | undefined>;
}
interface Cli {
  main(argv: string[], io: Io): Promise<number>;
}

const FIRST =
  "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+ONE\n*** Add File: b.txt\n+new\n*** Delete File: c.txt\n*** End Patch\n";
const SECOND = "*** Begin Patch\n*** Update File: a.txt\n@@\n-ONE\n+One\n*** End Patch\n";
const hashOf = (text: string) => createHash("sha256").update(text).digest("hex");

export default async function check(chapterDir: string): Promise<void> {
  const cli = (await import(pathToFileURL(join(chapterDir, "src/apply-patch-cli.ts")).href)) as Cli;
  const workspace = await mkdtemp(join(tmpdir(), "print-hashes-"));
  try {
    await writeFile(join(workspace, "a.txt"), "one\n");
    await writeFile(join(workspace, "c.txt"), "old\n");
    let out = "";
    let err = "";
    const io: Io = {
      stdout: (t) => void (out += t),
      stderr: (t) => void (err += t),
      readStdin: async () => undefined,
    };

    const first = await cli.main(["--print-hashes", "--cwd", workspace, FIRST], io);
    assert.equal(
      first,
      0,
      `--print-hashes should be accepted and the patch applied; stderr:\n${err}`,
    );
    assert.equal(
      out,
      "Success. Updated the following files:\nA b.txt\nM a.txt\nD c.txt\n",
      "stdout must stay exactly Codex's summary: the hashes go to stderr",
    );
    const aHash = hashOf("ONE\n");
    assert.ok(
      err.includes(`sha256 a.txt ${aHash}\n`),
      `stderr should have the line "sha256 a.txt ${aHash}"; it is:\n${err}`,
    );
    assert.ok(
      err.includes(`sha256 b.txt ${hashOf("new\n")}\n`),
      `stderr should have a line for the new file b.txt; it is:\n${err}`,
    );
    assert.doesNotMatch(err, /sha256 c\.txt/, "a deleted file has no hash to print");

    // The printed hash guards the next patch.
    out = "";
    err = "";
    const second = await cli.main(["--cwd", workspace, "--expect", `a.txt=${aHash}`, SECOND], io);
    assert.equal(second, 0, `the printed hash should pass --expect; stderr:\n${err}`);
    assert.equal(await readFile(join(workspace, "a.txt"), "utf8"), "One\n");

    out = "";
    err = "";
    await cli.main(["--cwd", workspace, "--expect", `a.txt=${hashOf("One\n")}`, "-"], {
      ...io,
      readStdin: async () =>
        "*** Begin Patch\n*** Update File: a.txt\n@@\n-One\n+one\n*** End Patch\n",
    });
    assert.doesNotMatch(err, /^sha256 /m, "without --print-hashes nothing extra is printed");
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}
