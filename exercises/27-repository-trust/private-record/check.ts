// Exercise "A record others can write": a trust record that is group- or world-writable trusts
// nothing, and recordTrust writes the record so that only its owner can read or write it.
import assert from "node:assert/strict";
import { chmod, mkdtemp, realpath, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

interface TrustModule {
  trustedAgentsMdCommands(
    workspace: string,
    lines: readonly string[],
    asking: {
      interactive: boolean;
      ask: (question: string, signal: AbortSignal) => Promise<string>;
    },
    notice: (line: string) => void,
  ): Promise<string[]>;
  recordTrust(workspace: string, lines: readonly string[]): Promise<void>;
  trustRecordPath(): string;
}

export default async function check(chapterDir: string): Promise<void> {
  const trust = (await import(
    pathToFileURL(join(chapterDir, "src/commands/agents-md-trust.ts")).href
  )) as TrustModule;
  const home = await mkdtemp(join(tmpdir(), "private-record-config-")); // never the real record
  const workspace = await realpath(await mkdtemp(join(tmpdir(), "private-record-ws-")));
  // The record's place comes from process.env, which the exercise checks share: one at a time.
  const release = await takeTurn();
  const saved = {
    XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME,
    trust: process.env.AGENT_TRUST_AGENTS_MD,
  };
  try {
    process.env.XDG_CONFIG_HOME = home;
    delete process.env.AGENT_TRUST_AGENTS_MD;
    const line = "node check.mjs";
    const noTerminal = { interactive: false, ask: async () => "y" };
    await trust.recordTrust(workspace, [line]);
    const mode = (await stat(trust.trustRecordPath())).mode & 0o777;
    assert.equal(
      mode & 0o077,
      0,
      `recordTrust should write the record as 600, not ${mode.toString(8)}`,
    );
    assert.deepEqual(
      await trust.trustedAgentsMdCommands(workspace, [line], noTerminal, () => {}),
      [line],
      "a private record is trusted",
    );

    for (const open of [0o620, 0o602, 0o666]) {
      await chmod(trust.trustRecordPath(), open);
      const notices: string[] = [];
      const trusted = await trust.trustedAgentsMdCommands(workspace, [line], noTerminal, (n) =>
        notices.push(n),
      );
      assert.deepEqual(trusted, [], `a record with mode ${open.toString(8)} must trust nothing`);
      assert.equal(notices.length, 1, "the line is named as not confirmed");
    }
    await chmod(trust.trustRecordPath(), 0o644); // others may read it: still only yours to write
    assert.deepEqual(await trust.trustedAgentsMdCommands(workspace, [line], noTerminal, () => {}), [
      line,
    ]);
  } finally {
    restore("XDG_CONFIG_HOME", saved.XDG_CONFIG_HOME);
    restore("AGENT_TRUST_AGENTS_MD", saved.trust);
    release();
    await rm(home, { recursive: true, force: true });
    await rm(workspace, { recursive: true, force: true });
  }
}

function restore(name: string, value: string | undefined): void {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}

/** Waits for the other checks that set the record's place (exercises run concurrently). */
async function takeTurn(): Promise<() => void> {
  const shared = globalThis as { trustRecordTurn?: Promise<void> };
  const previous = shared.trustRecordTurn ?? Promise.resolve();
  let release = () => {};
  shared.trustRecordTurn = previous.then(() => new Promise<void>((done) => (release = done)));
  await previous;
  return release;
}
