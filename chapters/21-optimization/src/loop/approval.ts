import path from "node:path";
import { isSecretFile, secretFilesAllowed } from "../fs/secret-files.ts";
import type { PlannedFile } from "../patch/apply-patch.ts";
import { countChangedLines } from "../patch/patch-limits.ts";
import type { PatchOperation } from "../patch/patch-types.ts";
import { visible } from "../terminal/visible-text.ts";
import type { AnyTool } from "../tools/define-tool.ts";
import { ToolError } from "../tools/tool-error.ts";

/**
 * Some patches are too consequential to apply on the model's word alone:
 * deleting a file, writing a secret file, touching many files, rewriting many
 * lines. For those the harness asks the person at the terminal. Everything
 * else runs unattended, because asking about every small patch teaches people
 * to press "y" blindly.
 */

export const APPROVAL_MIN_OPERATIONS = 6;
export const APPROVAL_MIN_CHANGED_LINES = 400;

/**
 * Why a patch needs approval, one phrase per reason; empty when it does not. `files` is the staged
 * plan: a whole-file replacement removes every line its file had, which only the plan knows.
 */
export function approvalReasons(
  operations: readonly PatchOperation[],
  files: readonly PlannedFile[] = [],
): string[] {
  const reasons = operations.filter((op) => op.kind === "delete").map((op) => `deletes ${op.path}`);
  reasons.push(...secretFileReasons(operations));
  if (operations.length >= APPROVAL_MIN_OPERATIONS) {
    reasons.push(`has ${operations.length} file operations`);
  }
  // The plan names files by their workspace path, which is the patch's path normalised.
  const before = (op: PatchOperation) =>
    files.find((file) => file.path === path.posix.normalize(op.path))?.before;
  const lines = operations.reduce((sum, op) => sum + countChangedLines(op, before), 0);
  if (lines >= APPROVAL_MIN_CHANGED_LINES) reasons.push(`changes ${lines} lines`);
  return reasons;
}

/**
 * Secret files (.env, .npmrc, private keys; chapter 8) hold what the model must not see, so read_file
 * refuses them, and the hash guard then refuses any change to one that exists. A new one needs no
 * read, and one line in it can matter (an .npmrc that sends installs to another registry), so the
 * person sees it first, unless they let the tools show secrets (AGENT_READ_SECRETS=1).
 */
function secretFileReasons(operations: readonly PatchOperation[]): string[] {
  if (secretFilesAllowed()) return [];
  const paths = operations.flatMap((op) =>
    op.kind === "update" && op.moveTo !== undefined ? [op.path, op.moveTo] : [op.path],
  );
  return [...new Set(paths.filter(isSecretFile))].map((file) => `writes a secret file (${file})`);
}

export type ApprovalDecision = "approved" | "declined" | "no_terminal";

/** Asks whether a risky patch may be applied. */
export type Approver = (reasons: string[], signal: AbortSignal) => Promise<ApprovalDecision>;

export interface ApproverOptions {
  /** --yes: approve everything without asking. */
  yes: boolean;
  /** Whether a person can answer: stdin and stdout are terminals. */
  interactive: boolean;
  /** Shows the question and resolves with the typed line. */
  ask: (question: string, signal: AbortSignal) => Promise<string>;
}

export function createApprover({ yes, interactive, ask }: ApproverOptions): Approver {
  return async (reasons, signal) => {
    if (yes) return "approved";
    // Nobody to ask (CI, a pipe): the safe default is no.
    if (!interactive) return "no_terminal";
    // The reasons name the model's paths: written out, so the question shows what is asked.
    const question = visible(`This patch ${joinReasons(reasons)}. Apply it? [y/N] `);
    const answer = await ask(question, signal);
    return /^y(es)?$/i.test(answer.trim()) ? "approved" : "declined";
  };
}

/** What the model reads when its patch was not applied: an error it can act on. */
export function notApprovedMessage(
  decision: Exclude<ApprovalDecision, "approved">,
  reasons: string[],
): { message: string; hint: string } {
  const what = `This patch ${joinReasons(reasons)}, which needs the user's approval`;
  const smaller = `Nothing was written. Make a smaller change that needs no approval (no deleted files, no secret files, fewer than ${APPROVAL_MIN_OPERATIONS} file operations, fewer than ${APPROVAL_MIN_CHANGED_LINES} changed lines)`;
  if (decision === "declined") {
    return {
      message: `${what}, and the user declined it.`,
      hint: `${smaller}, or finish and ask the user how to proceed.`,
    };
  }
  return {
    message: `${what}, but there is no terminal to ask, so the answer is no.`,
    hint: `${smaller}, or finish and tell the user to run the agent again with --yes to approve it.`,
  };
}

function joinReasons(reasons: string[]): string {
  if (reasons.length <= 1) return reasons.join("");
  return `${reasons.slice(0, -1).join(", ")} and ${reasons.at(-1)}`;
}

/**
 * The apply_patch tool with a gate inside: the patch is parsed and staged
 * once, and a risky one is written only once the user said yes. A refusal is
 * a tool error the model reads (code not_approved), so it can choose a smaller
 * change or stop and ask.
 */
export function requireApproval(tool: AnyTool, approver: Approver): AnyTool {
  return {
    ...tool,
    execute: (args, context) =>
      tool.execute(args, {
        ...context,
        async reviewPatch({ operations, files }) {
          const reasons = approvalReasons(operations, files);
          if (reasons.length === 0) return;
          const decision = await approver(reasons, context.signal);
          if (decision !== "approved") {
            const { message, hint } = notApprovedMessage(decision, reasons);
            throw new ToolError("not_approved", message, hint);
          }
        },
      }),
  };
}
