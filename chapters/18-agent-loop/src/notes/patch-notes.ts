import type { Note } from "./note.ts";
import type { NoteStore } from "./note-store.ts";

// After every apply_patch the harness leaves a note, so the next step (or the
// next run, or a person) can see what was tried: "Patch applied" as an
// action, "Patch failed" as a blocker. Only the fields used here are named,
// so chapter 13's full PatchResult fits without a conversion.
export interface PatchOutcome {
  success: boolean;
  changed: { op: string; path: string }[];
  failures: { path: string; code: string; message: string; hint?: string }[];
}

export interface PatchAttempt {
  // What the user asked for in this run.
  userInput: string;
  // The patch text exactly as the model sent it.
  patch: string;
  outcome: PatchOutcome;
}

const OP_LETTERS: Record<string, string> = { add: "A", update: "M", delete: "D", move: "R" };

export function writePatchNote(store: NoteStore, attempt: PatchAttempt): Promise<Note> {
  const { outcome } = attempt;
  if (outcome.success) {
    return store.create({
      title: "Patch applied",
      type: "action",
      tags: ["patch"],
      body:
        section("User input", attempt.userInput) +
        section("Files", fileLines(outcome)) +
        section("Patch", fenced(attempt.patch)),
    });
  }
  const error = outcome.failures.map((failure) => {
    const where = failure.path ? `${failure.path}: ` : "";
    const hint = failure.hint ? `\n  Hint: ${failure.hint}` : "";
    return `- ${where}${failure.code}: ${failure.message}${hint}`;
  });
  // A partial success still wrote files; the blocker must say which.
  const applied = outcome.changed.length > 0 ? section("Applied anyway", fileLines(outcome)) : "";
  return store.create({
    title: "Patch failed",
    type: "blocker",
    // The error codes as tags make "search file_changed" find past failures.
    tags: ["patch", ...outcome.failures.map((failure) => failure.code)],
    body:
      section("Error", error.join("\n")) +
      applied +
      section("User input", attempt.userInput) +
      section("Patch", fenced(attempt.patch)),
  });
}

function section(heading: string, content: string): string {
  return `## ${heading}\n\n${content.trimEnd()}\n\n`;
}

function fileLines(outcome: PatchOutcome): string {
  return outcome.changed
    .map((entry) => `- ${OP_LETTERS[entry.op] ?? entry.op} ${entry.path}`)
    .join("\n");
}

// The fence must be longer than any backtick run inside the patch, or a
// patch that edits Markdown would end the code block early.
function fenced(text: string): string {
  const longestRun = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(Math.max(3, longestRun + 1));
  return `${fence}patch\n${text.replace(/\n$/, "")}\n${fence}`;
}
