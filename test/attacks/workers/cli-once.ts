// cli-once CLI ARGS...: loads the CLI, prints "ready", waits for a line on stdin, runs main(ARGS)
// once, and prints "done". The crash test kills it with SIGKILL somewhere in between.
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";

type Main = (argv: string[]) => Promise<number>;
const [cli, ...args] = process.argv.slice(2) as [string, ...string[]];
const { main } = (await import(pathToFileURL(cli).href)) as { main: Main };
const input = createInterface({ input: process.stdin });
console.log("ready");
await new Promise((resolve) => input.once("line", resolve));
input.close();
process.exitCode = await main(args);
console.log("done");
