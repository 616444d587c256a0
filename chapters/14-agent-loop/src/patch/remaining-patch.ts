import { BEGIN_PATCH, END_PATCH } from "./patch-markers.ts";
import type { PatchOperation } from "./patch-types.ts";

/**
 * The part of a patch that still has to be applied: the failed operations, verbatim, in a
 * valid envelope. After fixing the cause, the model can send it back as it is.
 */
export function renderRemainingPatch(ops: readonly PatchOperation[]): string {
  return `${BEGIN_PATCH}\n${ops.map((op) => op.patchText).join("")}${END_PATCH}\n`;
}
