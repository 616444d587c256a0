// The newest chapter's agent (its src/main.ts) run from dist/agent.mjs, as `pnpm start` runs it, for
// tests and the bench that need the whole program: one Node start of about 0.3 CPU-s, where tsx
// compiling the chapter costs over a second. A test of one chapter's behaviour can still import
// that chapter's main in process; `pnpm chapter N` is the way to run any chapter's source.
import {
  runCommand,
  type CommandResult,
  type RunCommandOptions,
} from "../../shared/src/test-helpers.ts";
import { buildCliBundle, bundleFile } from "../build-cli.ts";
import { staleReason } from "./cli-bundle.ts";

export const AGENT_BUNDLE = bundleFile("agent");

let ready: Promise<string> | undefined;

/**
 * dist/agent.mjs, built first if it is missing or stale, once per process. The bundle would
 * rebuild itself on a stale start anyway, but in a child of each run; building here keeps parallel
 * runs from all doing it at once.
 */
export function agentBundle(): Promise<string> {
  ready ??= (async () => {
    if (staleReason(AGENT_BUNDLE) !== undefined) {
      const manifest = await buildCliBundle({ bundle: "agent" });
      if (manifest === undefined) throw new Error("no chapter has a src/main.ts to bundle");
    }
    return AGENT_BUNDLE;
  })();
  return ready;
}

/**
 * Runs the newest agent with these arguments, like `pnpm start -- ARGS` without pnpm: the same
 * code, exit code and output. The agent works in `cwd` (it resolves --repo against it): an
 * INIT_CWD inherited from a pnpm that started the tests is dropped, unless `env` sets one, which
 * then stands for the folder the user typed `pnpm start` in.
 */
export async function runAgent(
  args: string[],
  options: RunCommandOptions = {},
): Promise<CommandResult> {
  const env = { INIT_CWD: undefined, ...options.env };
  return runCommand(process.execPath, [await agentBundle(), ...args], { ...options, env });
}
