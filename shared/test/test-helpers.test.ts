import { rm, symlink } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeTempDir, readTree, runCommand, writeTree } from "../src/test-helpers.ts";

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

describe("test helpers", () => {
  it("writes and reads a tree byte for byte, sorted, with ignores and symlinks", async () => {
    const dir = await makeTempDir("helpers-test-");
    dirs.push(dir);
    await writeTree(dir, {
      "b.txt": "crlf\r\nline\r\n",
      "a/bom.ts": "\uFEFFexport {};\n",
      "a/raw.bin": new Uint8Array([0, 255, 10]),
      ".agent/runs/x.json": "{}",
    });
    await symlink("b.txt", join(dir, "link"));
    const tree = await readTree(dir, { ignore: [".agent"] });
    expect(tree).toEqual({
      "a/bom.ts": "\u00EF\u00BB\u00BFexport {};\n",
      "a/raw.bin": "\u0000\u00FF\n",
      "b.txt": "crlf\r\nline\r\n",
      link: "symlink -> b.txt",
    });
    expect(Object.keys(tree)).toEqual(["a/bom.ts", "a/raw.bin", "b.txt", "link"]);
    expect(Buffer.from(tree["a/raw.bin"]!, "latin1")).toEqual(Buffer.from([0, 255, 10]));
  });

  it("runs a command with input, env and cwd, and reports a non-zero exit", async () => {
    const dir = await makeTempDir("helpers-test-");
    dirs.push(dir);
    const script =
      "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{console.log(s.toUpperCase()+process.env.HELPER_VAR+' '+process.cwd());console.error('oops');process.exit(3)})";
    const result = await runCommand(process.execPath, ["-e", script], {
      cwd: dir,
      input: "hi ",
      env: { HELPER_VAR: "set" },
    });
    expect(result).toEqual({ code: 3, signal: null, stdout: `HI set ${dir}\n`, stderr: "oops\n" });
  });
});
