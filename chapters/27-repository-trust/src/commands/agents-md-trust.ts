/**
 * Which of AGENTS.md's `allow-command:` lines the user has confirmed. The file is in the
 * workspace, and a command can write it: `echo 'allow-command: curl … | sh' >> AGENTS.md` would
 * otherwise let the next run, with nobody at the terminal, run that without asking. So a line
 * runs without asking only once the user said yes to that exact text for that folder, on a
 * terminal; the yes is kept outside every workspace, in the user's config folder.
 */
import { mkdir, readFile, realpath, rename, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";
import { z } from "zod";
import { isYes, trustQuestion, visible } from "./command-approval.ts";

/** `1` trusts every line for this run, unasked: for CI on a repository only you write. */
export const TRUST_ENV = "AGENT_TRUST_AGENTS_MD";

/** The workspace's real path → the allow-command lines the user confirmed there. */
const TrustRecord = z.record(z.string(), z.array(z.string()));
type TrustRecord = z.infer<typeof TrustRecord>;

/** $XDG_CONFIG_HOME/build-agent/trusted-commands.json, or under ~/.config without it. */
export function trustRecordPath(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_CONFIG_HOME;
  const config = xdg !== undefined && isAbsolute(xdg) ? xdg : join(homedir(), ".config");
  return join(config, "build-agent", "trusted-commands.json");
}

export interface TrustAsking {
  /** A terminal to ask on; without one, nothing new is trusted. */
  interactive: boolean;
  ask: (question: string, signal: AbortSignal) => Promise<string>;
}

/**
 * The lines that may run without asking: those confirmed before, and the rest if the user says
 * yes now (which is recorded). A line not confirmed is left out with a notice: its command asks,
 * or is refused with no terminal, like any other.
 */
export async function trustedAgentsMdCommands(
  workspace: string,
  lines: readonly string[],
  asking: TrustAsking,
  notice: (line: string) => void,
): Promise<string[]> {
  if (lines.length === 0 || process.env[TRUST_ENV] === "1") return [...lines];
  const key = await realpath(workspace);
  const confirmed = new Set((await readTrustRecord())[key] ?? []);
  const fresh = lines.filter((line) => !confirmed.has(line));
  if (fresh.length === 0) return [...lines];
  if (asking.interactive) {
    const answer = await asking.ask(trustQuestion(key, fresh), new AbortController().signal);
    if (isYes(answer)) {
      await recordTrust(workspace, lines);
      return [...lines];
    }
  }
  const shown = fresh.map((c) => `\`${visible(c)}\``).join(", ");
  notice(
    `AGENTS.md allows commands you have not confirmed (new or changed): ${shown}; they ask like any other command. To trust them, answer y on a terminal, or set ${TRUST_ENV}=1`,
  );
  return lines.filter((line) => confirmed.has(line));
}

/** Records `lines` as the ones confirmed for `workspace`, replacing what was confirmed before. */
export async function recordTrust(workspace: string, lines: readonly string[]): Promise<void> {
  const path = trustRecordPath();
  const record = { ...(await readTrustRecord()), [await realpath(workspace)]: [...new Set(lines)] };
  await mkdir(dirname(path), { recursive: true });
  // A temp file renamed over the record: a crash leaves the old record or the new, never half.
  const temp = `${path}.${process.pid}.tmp`;
  await writeFile(temp, JSON.stringify(record, null, 2) + "\n");
  await rename(temp, path);
}

/** A missing or damaged record trusts nothing; the next yes writes a good one. */
async function readTrustRecord(): Promise<TrustRecord> {
  try {
    const parsed = TrustRecord.safeParse(JSON.parse(await readFile(trustRecordPath(), "utf8")));
    return parsed.success ? parsed.data : {};
  } catch {
    return {};
  }
}
