// Exercise "Yes to all": answering "a" approves this risky patch and every later one of the same
// approver without asking again; "y" approves one; a new approver asks again.
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

type Decision = "approved" | "declined" | "no_terminal";
type Approver = (reasons: string[], signal: AbortSignal) => Promise<Decision>;
interface ApprovalModule {
  createApprover(options: {
    yes: boolean;
    interactive: boolean;
    ask: (question: string, signal: AbortSignal) => Promise<string>;
  }): Approver;
}

export default async function check(chapterDir: string): Promise<void> {
  const { createApprover } = (await import(
    pathToFileURL(join(chapterDir, "src/loop/approval.ts")).href
  )) as ApprovalModule;
  const signal = new AbortController().signal;
  const reasons = ["deletes README.md"];

  /** An approver whose person types `answers`, one per question; `asked` are the questions. */
  const person = (...answers: string[]) => {
    const asked: string[] = [];
    const approver = createApprover({
      yes: false,
      interactive: true,
      ask: async (question) => {
        asked.push(question);
        return answers.shift() ?? "n";
      },
    });
    return { approver, asked };
  };

  const all = person("a");
  assert.equal(await all.approver(reasons, signal), "approved", '"a" should approve this patch');
  assert.match(
    all.asked[0] ?? "",
    /\[y\/N\/a\] $/,
    `the question should offer the new answer: "... Apply it? [y/N/a] " (got "${all.asked[0]}")`,
  );
  assert.equal(await all.approver(["changes 500 lines"], signal), "approved");
  assert.equal(await all.approver(reasons, signal), "approved");
  assert.equal(
    all.asked.length,
    1,
    `after "a" the same approver should not ask again (it asked ${all.asked.length} times)`,
  );

  const fresh = person("n");
  assert.equal(
    await fresh.approver(reasons, signal),
    "declined",
    'a new approver (a new session) does not remember another one\'s "a"',
  );

  const once = person("y", "n");
  assert.equal(await once.approver(reasons, signal), "approved", '"y" approves one patch');
  assert.equal(await once.approver(reasons, signal), "declined", '"y" is not "a": ask again');
  assert.equal(once.asked.length, 2);

  const word = person("all");
  assert.equal(await word.approver(reasons, signal), "approved", '"all" is the same as "a"');

  const nobody = createApprover({ yes: false, interactive: false, ask: async () => "a" });
  assert.equal(
    await nobody(reasons, signal),
    "no_terminal",
    "with no terminal nobody can answer, so the answer is still no",
  );
}
