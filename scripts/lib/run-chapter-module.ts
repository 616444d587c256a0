// Runs a chapter's entry module in this process, as if started with `tsx <module> ...args`.
// The module's own "am I the entry point?" guard compares process.argv[1] with its path, so we set
// argv before importing it. In-process import saves starting a second Node for every command.
import { pathToFileURL } from "node:url";

export async function runChapterModule(modulePath: string, args: string[]): Promise<void> {
  process.argv = [process.argv[0]!, modulePath, ...args];
  await import(pathToFileURL(modulePath).href);
}

/** pnpm forwards a literal "--" separator in some versions; a chapter never wants it. */
export function userArgs(argv: string[]): string[] {
  return argv[0] === "--" ? argv.slice(1) : argv;
}
