// Token counts in captured runs are the capture's own; from chapter 17 on they depend on the
// workspace's path, the date and the git state in the system prompt, and the page says so.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { renderTranscript, TOKEN_NOTE } from "../../docs/.vitepress/transcript.ts";
import { DOCS_DIR } from "./site-pages.ts";

const capture = (path: string) => readFileSync(join(DOCS_DIR, "outputs", path), "utf8");

describe("why a reader's token counts differ from a capture's", () => {
  test("a run of chapter 17 or later that counts tokens says why yours differ", () => {
    const html = renderTranscript(capture("break-it/18-agent-loop.this.txt"));
    expect(html).toMatch(/tokens: \d+ in/);
    expect(html).toContain(`<p class="transcript-note">${TOKEN_NOTE}</p>`);
    expect(TOKEN_NOTE).toContain("workspace's path, the date and the git state");
  });

  test("an earlier chapter's run, whose prompt holds no path or date, has no note", () => {
    expect(
      renderTranscript("$ pnpm chapter 16 -- --demo-of 17\ntokens: 5 in, 3 out\n"),
    ).not.toContain("transcript-note");
    expect(renderTranscript("$ pnpm chapter 18\nhello\n")).not.toContain("transcript-note");
  });
});
