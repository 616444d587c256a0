// Exercise "Yes to this command": once the person approved a command, the same approver runs the
// same command (the same text, surrounding spaces aside) again without asking; any other command
// still asks, a "no" is not remembered, and a new approver (a new run) asks again.
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

type Decision = "approved" | "declined" | "no_terminal";
type CommandApprover = (command: string, cwd: string, signal: AbortSignal) => Promise<Decision>;
interface ApprovalModule {
  createCommandApprover(options: {
    yes: boolean;
    interactive: boolean;
    ask: (question: string, signal: AbortSignal) => Promise<string>;
  }): CommandApprover;
}

export default async function check(chapterDir: string): Promise<void> {
  const { createCommandApprover } = (await import(
    pathToFileURL(join(chapterDir, "src/commands/command-approval.ts")).href
  )) as ApprovalModule;
  const signal = new AbortController().signal;
  const cwd = "/work/app";

  /** An approver whose person types `answers`, one per question; `asked` are the questions. */
  const person = (...answers: string[]) => {
    const asked: string[] = [];
    const approver = createCommandApprover({
      yes: false,
      interactive: true,
      ask: async (question) => {
        asked.push(question);
        return answers.shift() ?? "n";
      },
    });
    return { approver, asked };
  };

  const { approver, asked } = person("y", "n", "n");
  assert.equal(await approver("pnpm test", cwd, signal), "approved");
  assert.equal(await approver("pnpm test", cwd, signal), "approved", "the same command again");
  assert.equal(await approver(" pnpm test ", cwd, signal), "approved", "surrounding spaces aside");
  assert.equal(
    asked.length,
    1,
    `after a yes, the same command should not be asked about again (asked ${asked.length} times)`,
  );
  assert.equal(asked[0], "Run `pnpm test` in /work/app? [y/N] ", "the question stays the same");

  assert.equal(
    await approver("pnpm test; rm -rf ~", cwd, signal),
    "declined",
    "a yes is for one exact command: a longer one asks, and this person says no",
  );
  assert.equal(await approver("pnpm lint", cwd, signal), "declined");
  assert.equal(asked.length, 3, "every other command is asked about");

  const declines = person("n", "y");
  assert.equal(await declines.approver("pnpm test", cwd, signal), "declined");
  assert.equal(
    await declines.approver("pnpm test", cwd, signal),
    "approved",
    "a no is not remembered: the model may ask again, and the person may change their mind",
  );

  const fresh = person("n");
  assert.equal(
    await fresh.approver("pnpm test", cwd, signal),
    "declined",
    "a new approver (a new run) does not remember another one's yes",
  );

  const nobody = createCommandApprover({ yes: false, interactive: false, ask: async () => "y" });
  assert.equal(await nobody("pnpm test", cwd, signal), "no_terminal");
  assert.equal(await nobody("pnpm test", cwd, signal), "no_terminal", "no terminal is still no");
}
