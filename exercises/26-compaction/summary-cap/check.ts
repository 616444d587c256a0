// Exercise "A summary that keeps its word": the model's summary is cut to 200 tokens, at the last
// whole sentence that fits, and ends with "(summary cut to 200 tokens)"; a short one is untouched.
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

interface Message {
  role: string;
  content?: unknown;
  tool_call_id?: string;
  tool_calls?: unknown[];
}
interface Conversation {
  system: Message;
  history: Message[];
}
interface CompactModule {
  compactIfNeeded(
    conversation: Conversation,
    options: {
      task: Message;
      budget: number;
      tools: unknown[];
      ledger: { events(): unknown[]; recordCompaction(fields: unknown): Promise<void> };
      summarize: (conversation: Conversation) => Promise<string | undefined>;
    },
  ): Promise<Conversation>;
}
interface CounterModule {
  countTextTokens(text: string): number;
}

const load = <T>(chapterDir: string, file: string) =>
  import(pathToFileURL(join(chapterDir, file)).href) as Promise<T>;

const MARKER = "(summary cut to 200 tokens)";
const HEADING = "Your own summary, written just before compaction:\n";

export default async function check(chapterDir: string): Promise<void> {
  const { compactIfNeeded } = await load<CompactModule>(chapterDir, "src/compaction/compact.ts");
  const { countTextTokens } = await load<CounterModule>(chapterDir, "src/context/token-counter.ts");

  // The task, then eight reads of about 200 tokens each: past 75% of a 2,400-token budget.
  const task: Message = { role: "user", content: "The task." };
  const history: Message[] = [task];
  for (let s = 0; s < 8; s++) {
    const call = {
      id: `call_${s}`,
      type: "function",
      function: { name: "read_file", arguments: "{}" },
    };
    history.push({ role: "assistant", content: `Reading ${s}.`, tool_calls: [call] });
    history.push({ role: "tool", tool_call_id: call.id, content: "lorem ipsum ".repeat(100) });
  }
  const summaryOf = async (answer: string) => {
    const compacted = await compactIfNeeded(
      { system: { role: "system", content: "You are a test agent." }, history },
      {
        task,
        budget: 2_400,
        tools: [],
        ledger: {
          events: () => [
            { type: "run_start", time: "t", run_id: "r", task: "The task.", model: "m", cwd: "/w" },
          ],
          recordCompaction: async () => {},
        },
        summarize: async () => answer,
      },
    );
    const text = compacted.history[1]?.content;
    assert.equal(typeof text, "string", "the task should be followed by the compaction message");
    const at = (text as string).indexOf(HEADING);
    assert.ok(at >= 0, `the compaction message should end with the model's summary: ${text}`);
    return (text as string).slice(at + HEADING.length);
  };

  const short = "I read the logs. The coupon comes off after tax. Next: patch total().";
  assert.equal(await summaryOf(short), short, "a summary within 200 tokens is kept as it is");

  const sentences = Array.from(
    { length: 40 },
    (_, i) => `Log ${i + 1} shows every coupon order charged one hundred cents too much.`,
  );
  const long = sentences.join(" ");
  const capped = await summaryOf(long);
  assert.ok(capped.endsWith(` ${MARKER}`), `a long summary should end with "${MARKER}": ${capped}`);
  const kept = capped.slice(0, -MARKER.length - 1);
  assert.ok(
    countTextTokens(kept) <= 200,
    `the kept summary should be at most 200 tokens, not ${countTextTokens(kept)}`,
  );
  assert.ok(long.startsWith(kept), "the kept summary should be the summary's beginning");
  assert.ok(kept.endsWith("much."), `the summary should be cut after a whole sentence: ${kept}`);
  const next = sentences.slice(0, sentences.findIndex((s) => !kept.includes(s)) + 1).join(" ");
  assert.ok(
    countTextTokens(next) > 200,
    "the summary should keep as many whole sentences as fit in 200 tokens",
  );
}
