import { PatchError } from "../src/patch/patch-errors.ts";

/** A patch text from its lines, each ending with "\n". */
export function patchOf(...lines: string[]): string {
  return lines.map((line) => `${line}\n`).join("");
}

/** The PatchError that `action` throws; fails the test when it throws nothing or something else. */
export function refusal(action: () => unknown): PatchError {
  try {
    action();
  } catch (error) {
    if (error instanceof PatchError) return error;
    throw error;
  }
  throw new Error("expected a PatchError, but nothing was thrown");
}
