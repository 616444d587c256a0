import type { ToolCallRequest, ToolCallResult } from "../tools/run-tool-call.ts";

/**
 * Models sometimes write a patch into their answer instead of calling
 * apply_patch: fenced in ```patch, or bare. Ignoring it would lose the work and
 * leave the model believing the file changed. So the harness picks the patch
 * out of the text and applies it through the same guard as a tool call.
 */

const BEGIN = "*** Begin Patch";
const END = "*** End Patch";

/**
 * The patch in `text`, from its `*** Begin Patch` line through its
 * `*** End Patch` line, without any fence around it; undefined when the text
 * holds no patch. A patch without an end marker is returned up to the end of
 * the text (or its closing fence), so apply_patch can tell the model what is
 * missing instead of the harness silently ignoring it.
 */
export function extractTextPatch(text: string): string | undefined {
  const lines = text.replace(/\r\n/g, "\n").split("\n");
  const begin = lines.findIndex((line) => line.trim().startsWith(BEGIN));
  if (begin === -1) return undefined;
  // A patch squeezed onto one line: hand it over whole; parsePatch explains the fix.
  if (lines[begin]!.includes(END)) return lines[begin]!.trim() + "\n";

  let end = lines.findIndex((line, i) => i > begin && line.trim() === END);
  if (end === -1) {
    const fence = lines.findIndex((line, i) => i > begin && line.trim().startsWith("```"));
    end = (fence === -1 ? lines.length : fence) - 1;
  }
  const patch = lines.slice(begin, end + 1);
  patch[0] = patch[0]!.trim();
  return patch.join("\n").trimEnd() + "\n";
}

/**
 * The text patch as the tool call the model should have made. It runs through
 * the same runner as real calls (approval, hash guard, ledger), so a patch in
 * prose gets no way around the rules.
 */
export function textPatchCall(patch: string, n: number): ToolCallRequest {
  return {
    id: `text-patch-${n}`,
    function: { name: "apply_patch", arguments: JSON.stringify({ patch }) },
  };
}

/** What the model is told afterwards, as a user message (there was no tool call to answer). */
export function textPatchReport(call: ToolCallRequest, result: ToolCallResult): string {
  return (
    `Your last message contained a patch as plain text. The harness applied it through apply_patch for you (as call ${call.id}); the result is below. ` +
    "From now on, call the apply_patch tool instead of writing a patch in your answer.\n\n" +
    result.content
  );
}
