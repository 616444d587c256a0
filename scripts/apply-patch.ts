// pnpm apply-patch [--cwd DIR] [--expect PATH=SHA256]... [--atomic] [--json] [FILE|-]
// The standalone patch tool of the newest chapter that has one (chapter 07 onwards).
import { newestChapterFile } from "./lib/chapters.ts";
import { runChapterModule, userArgs } from "./lib/run-chapter-module.ts";

const cli = newestChapterFile("src/apply-patch-cli.ts");
if (cli === undefined) {
  console.error(
    "pnpm apply-patch: no chapter has src/apply-patch-cli.ts yet (it arrives in chapter 07).",
  );
  process.exit(2);
}
// pnpm runs scripts from the repository root; the patch applies (and FILE is found) where the
// user typed the command, which pnpm passes as INIT_CWD.
if (process.env.INIT_CWD !== undefined) process.chdir(process.env.INIT_CWD);
await runChapterModule(cli, userArgs(process.argv.slice(2)));
