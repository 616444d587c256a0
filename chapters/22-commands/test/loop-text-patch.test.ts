import { describe, expect, it } from "vitest";
import { extractTextPatch } from "../src/loop/text-patch.ts";

const PATCH = "*** Begin Patch\n*** Update File: a.ts\n-old\n+new\n*** End Patch\n";

describe("extractTextPatch", () => {
  it("finds nothing in a plain answer", () => {
    expect(extractTextPatch("I fixed the bug in a.ts.")).toBeUndefined();
  });

  it("takes a bare patch out of the surrounding prose", () => {
    expect(extractTextPatch(`Here is the fix:\n${PATCH}\nThat should do it.`)).toBe(PATCH);
  });

  it("takes a fenced patch without its fence", () => {
    expect(extractTextPatch("```patch\n" + PATCH + "```\n")).toBe(PATCH);
    expect(extractTextPatch("```diff\r\n" + PATCH.replace(/\n/g, "\r\n") + "```")).toBe(PATCH);
  });

  it("passes a patch squeezed onto one line on whole, for apply_patch to explain", () => {
    const line = "*** Begin Patch *** Update File: a.ts -old +new *** End Patch";
    expect(extractTextPatch(`Try: ${line}`)).toBeUndefined();
    expect(extractTextPatch(line)).toBe(line + "\n");
  });

  it("keeps a patch without an end marker, up to its closing fence", () => {
    const open = "*** Begin Patch\n*** Update File: a.ts\n-old\n+new\n";
    expect(extractTextPatch("```\n" + open + "```\nDone.")).toBe(open);
  });
});
