// Exercise "Watch the estimate drift" (offline part): usageLine warns when the server counted more
// than 10% more prompt tokens than we did, since the budget then lets through requests too big.
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

interface Chat {
  usageLine(
    result: {
      message: { role: "assistant"; content: string | null };
      usage: Usage | null;
      finishReason: "stop";
    },
    estimated: number,
  ): string;
}

/** A finished answer whose server-side usage is `promptTokens` in and 40 out. */
function answer(promptTokens: number) {
  return {
    message: { role: "assistant" as const, content: "ok" },
    usage: { prompt_tokens: promptTokens, completion_tokens: 40, total_tokens: promptTokens + 40 },
    finishReason: "stop" as const,
  };
}

export default async function check(chapterDir: string): Promise<void> {
  const { usageLine } = (await import(
    pathToFileURL(join(chapterDir, "src/context/chat.ts")).href
  )) as Chat;

  assert.equal(
    usageLine(answer(185), 180),
    "tokens: 185 in (we counted 180), 40 out",
    "a small difference (under 10%) should leave the line as it was",
  );
  assert.equal(
    usageLine(answer(150), 180),
    "tokens: 150 in (we counted 180), 40 out",
    "the server counting fewer tokens than we did is safe: no warning",
  );
  const drifted = usageLine(answer(220), 180);
  assert.match(drifted, /^tokens: 220 in \(we counted 180/, `keep both numbers, got: ${drifted}`);
  assert.match(drifted, /22%/, `say how far off our count is (220 vs 180 is 22%), got: ${drifted}`);
  assert.match(
    drifted,
    /AGENT_CONTEXT_TOKENS/,
    `name the setting that protects the run (AGENT_CONTEXT_TOKENS), got: ${drifted}`,
  );
  assert.match(drifted, /40 out$/, `keep the output tokens at the end, got: ${drifted}`);
}
