// cli-appender CLI ROOT FILE ID ROUNDS: ROUNDS times, reads FILE, and appends the line "ID-round"
// through the CLI's main() with --expect of the hash it read. Waits for "go" on stdin first, then
// prints one JSON line: [{ line, success, code }] per round.
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";

interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  readStdin: () => Promise<string | undefined>;
}
type Main = (argv: string[], io: CliIo) => Promise<number>;

const [cli, root, file, id, rounds] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
];
const { main } = (await import(pathToFileURL(cli).href)) as { main: Main };
const input = createInterface({ input: process.stdin });
console.log("ready");
await new Promise((resolve) => input.once("line", resolve));

const outcomes: { line: string; success: boolean; code?: string }[] = [];
for (let round = 0; round < Number(rounds); round += 1) {
  const bytes = await readFile(path.join(root, file));
  const lines = bytes.toString("utf8").trimEnd().split("\n");
  const line = `${id}-${round}`;
  const text = [
    "*** Begin Patch",
    `*** Update File: ${file}`,
    "@@",
    ` ${lines.at(-1)}`,
    `+${line}`,
    "*** End Patch",
    "",
  ];
  let stdout = "";
  const io: CliIo = {
    stdout: (t) => (stdout += t),
    stderr: () => undefined,
    readStdin: async () => undefined,
  };
  const hash = createHash("sha256").update(bytes).digest("hex");
  await main(["--cwd", root, "--expect", `${file}=${hash}`, "--json", text.join("\n")], io);
  const result = JSON.parse(stdout) as { success: boolean; failures: { code: string }[] };
  outcomes.push({ line, success: result.success, code: result.failures[0]?.code });
}
console.log(JSON.stringify(outcomes));
input.close();
