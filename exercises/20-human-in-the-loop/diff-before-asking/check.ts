// Exercise "Show the patch before asking": the question about a risky patch shows the diff of
// what it would write, above "Apply it? [y/N]", computed from the staged plan.
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { stripVTControlCharacters } from "node:util";

interface Context {
  cwd: string;
  signal: AbortSignal;
  reviewPatch?: (plan: unknown) => Promise<void>;
}
interface Tool {
  name: string;
  execute(args: { patch: string }, context: Context): Promise<{ ok: boolean; content: string }>;
}
interface ApprovalModule {
  createApprover(options: {
    yes: boolean;
    interactive: boolean;
    ask: (question: string, signal: AbortSignal) => Promise<string>;
  }): unknown;
  requireApproval(tool: Tool, approver: unknown): Tool;
}
interface ApplyPatchModule {
  applyPatch(
    patch: string,
    options: { cwd: string; review?: (plan: unknown) => Promise<void> | void },
  ): Promise<{ success: boolean }>;
}

// One update and one delete: the delete makes it a patch that needs approval.
const PATCH = [
  "*** Begin Patch",
  "*** Update File: a.txt",
  "@@",
  " one",
  "-two",
  "+TWO",
  "*** Delete File: b.txt",
  "*** End Patch",
  "",
].join("\n");

export default async function check(chapterDir: string): Promise<void> {
  const load = async <T>(path: string) =>
    (await import(pathToFileURL(join(chapterDir, path)).href)) as T;
  const { createApprover, requireApproval } = await load<ApprovalModule>("src/loop/approval.ts");
  const { applyPatch } = await load<ApplyPatchModule>("src/patch/apply-patch.ts");

  const workspace = await mkdtemp(join(tmpdir(), "diff-before-asking-"));
  try {
    await writeFile(join(workspace, "a.txt"), "one\ntwo\n");
    await writeFile(join(workspace, "b.txt"), "bee\n");
    // apply_patch without the hash guard (that is chapter 11's business): the patch and the review.
    const tool: Tool = {
      name: "apply_patch",
      async execute(args, context) {
        const result = await applyPatch(args.patch, {
          cwd: context.cwd,
          review: context.reviewPatch,
        });
        return { ok: result.success, content: result.success ? "applied" : "failed" };
      },
    };
    const questions: string[] = [];
    const gated = (answer: string) =>
      requireApproval(
        tool,
        createApprover({
          yes: false,
          interactive: true,
          ask: async (question) => {
            questions.push(stripVTControlCharacters(question));
            return answer;
          },
        }),
      );
    const context = { cwd: workspace, signal: new AbortController().signal };

    await assert.rejects(
      gated("n").execute({ patch: PATCH }, context),
      /not_approved|approval/,
      "a declined patch is still refused with not_approved",
    );
    assert.equal(questions.length, 1, "the person should be asked once");
    const question = questions[0]!;
    assert.match(
      question,
      /-two/,
      `the question should show the removed line "-two":\n${question}`,
    );
    assert.match(question, /\+TWO/, `the question should show the added line "+TWO":\n${question}`);
    assert.match(
      question,
      /b\.txt/,
      `the question should show that b.txt is deleted:\n${question}`,
    );
    assert.match(
      question,
      /Apply it\? \[y\/N\] $/,
      `the question should still end with "Apply it? [y/N] ":\n${question}`,
    );
    assert.ok(
      question.indexOf("+TWO") < question.indexOf("Apply it?"),
      "the diff goes above the question, where the person reads it before answering",
    );
    assert.equal(await readFile(join(workspace, "a.txt"), "utf8"), "one\ntwo\n", "no means no");

    await gated("y").execute({ patch: PATCH }, context);
    assert.equal(await readFile(join(workspace, "a.txt"), "utf8"), "one\nTWO\n", "yes applies it");

    // --yes and "no terminal" still answer without asking.
    questions.length = 0;
    await writeFile(join(workspace, "b.txt"), "bee\n");
    await writeFile(join(workspace, "a.txt"), "one\ntwo\n");
    const yes = createApprover({
      yes: true,
      interactive: true,
      ask: async (q) => {
        questions.push(q);
        return "n";
      },
    });
    await requireApproval(tool, yes).execute({ patch: PATCH }, context);
    assert.equal(questions.length, 0, "--yes approves without asking");
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}
