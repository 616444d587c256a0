import { createRequire } from "node:module";
import type * as O200kBase from "gpt-tokenizer/encoding/o200k_base";
import type {
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from "openai/resources/chat/completions";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { fitToBudget } from "../src/context/context-budget.ts";
import { addMessages, startConversation } from "../src/context/conversation.ts";
import {
  countMessageTokens,
  countRequestTokens,
  countTextTokens,
  countToolTokens,
  MAX_RUN_CHARS,
  REPLY_PRIMING_TOKENS,
  TOKENS_PER_MESSAGE,
} from "../src/context/token-counter.ts";

// The real tokenizer, watched: the tests below count the work it is given. token-counter.ts loads
// it with require at the first count, so the watch goes on the module that require returns.
const tokenizer = createRequire(import.meta.url)(
  "gpt-tokenizer/encoding/o200k_base",
) as typeof O200kBase;
const realEncode = tokenizer.encode;
const encoded = vi.spyOn(tokenizer, "encode").mockImplementation((text) => realEncode(text));
beforeEach(() => {
  encoded.mockClear();
});

describe("token counting with o200k_base", () => {
  it("counts text with the real tokenizer", () => {
    expect(countTextTokens("hello world")).toBe(2);
    expect(countTextTokens("Hello, world!")).toBe(4);
    expect(countTextTokens("")).toBe(0);
  });

  it("adds the per-message markers and the role", () => {
    // 3 markers + "user" (1) + "hello world" (2)
    expect(countMessageTokens({ role: "user", content: "hello world" })).toBe(6);
    expect(countRequestTokens([{ role: "user", content: "hello world" }])).toBe(
      6 + REPLY_PRIMING_TOKENS,
    );
    expect(countRequestTokens([])).toBe(REPLY_PRIMING_TOKENS);
    expect(TOKENS_PER_MESSAGE).toBe(3);
  });

  it("matches the OpenAI cookbook's count for gpt-4o (124 prompt tokens, as the API reports)", () => {
    // The example from "How to count tokens with tiktoken", including `name` fields.
    const messages: ChatCompletionMessageParam[] = [
      {
        role: "system",
        content:
          "You are a helpful, pattern-following assistant that translates corporate jargon into plain English.",
      },
      {
        role: "system",
        name: "example_user",
        content: "New synergies will help drive top-line growth.",
      },
      {
        role: "system",
        name: "example_assistant",
        content: "Things working well together will increase revenue.",
      },
      {
        role: "system",
        name: "example_user",
        content:
          "Let's circle back when we have more bandwidth to touch base on opportunities for increased leverage.",
      },
      {
        role: "system",
        name: "example_assistant",
        content: "Let's talk later when we're less busy about how to do better.",
      },
      {
        role: "user",
        content:
          "This late pivot means we don't have time to boil the ocean for the client deliverable.",
      },
    ];
    expect(countRequestTokens(messages)).toBe(124);
  });

  it("counts tool calls (name + arguments + our marker estimate) and tool results", () => {
    const call: ChatCompletionMessageParam = {
      role: "assistant",
      content: null,
      tool_calls: [
        {
          id: "call_1",
          type: "function",
          function: { name: "read_file", arguments: '{"path":"a.ts"}' },
        },
      ],
    };
    // 3 + "assistant" (1) + no content + [3 + "read_file" (2) + '{"path":"a.ts"}' (6)]
    expect(countMessageTokens(call)).toBe(15);
    // 3 + "tool" (1) + "1: hello" (3) + "call_1" (3)
    expect(countMessageTokens({ role: "tool", tool_call_id: "call_1", content: "1: hello" })).toBe(
      10,
    );
  });

  it("counts the text parts of content given as a list", () => {
    expect(
      countMessageTokens({ role: "user", content: [{ type: "text", text: "hello world" }] }),
    ).toBe(6);
  });
});

describe("counting stays cheap", () => {
  it("cuts a long run without spaces into short pieces, and the count stays close", async () => {
    const real = encoded.getMockImplementation()!;
    // A piece longer than MAX_RUN_CHARS is refused at once: without the cuts, the tokenizer's
    // quadratic merging would take most of a minute on this run.
    encoded.mockImplementation((text) => {
      if (text.length > MAX_RUN_CHARS) throw new Error(`encode got ${text.length} characters`);
      return real(text);
    });
    try {
      const tokens = countTextTokens("=".repeat(200_000));
      expect(encoded.mock.calls.length).toBeGreaterThanOrEqual(200_000 / MAX_RUN_CHARS);
      expect(tokens).toBeGreaterThan(0);
    } finally {
      encoded.mockImplementation(real);
    }
    // On a sample the real tokenizer handles quickly, the cut count is the true count or a hair
    // above it (no token spans a cut).
    for (const sample of ["=".repeat(3_000), "A".repeat(3_000), "漢字".repeat(1_500)]) {
      const truth = real(sample).length;
      const counted = countTextTokens(sample);
      expect(counted).toBeGreaterThanOrEqual(truth);
      expect(counted).toBeLessThanOrEqual(truth * 1.02 + 1);
    }
  });

  it("leaves ordinary text whole", () => {
    const text = "const total = items.reduce((sum, item) => sum + item.price, 0);\n".repeat(50);
    expect(countTextTokens(text)).toBe(encoded.getMockImplementation()!(text).length);
  });

  it("counts a message once, however often it is asked", () => {
    const message: ChatCompletionMessageParam = { role: "user", content: "hello world" };
    expect(countMessageTokens(message)).toBe(6);
    const calls = encoded.mock.calls.length;
    expect(countMessageTokens(message)).toBe(6);
    expect(encoded.mock.calls.length).toBe(calls);
  });

  it("fitting the budget again counts only the new message", () => {
    let conversation = startConversation("Be brief.");
    for (let i = 0; i < 50; i++) {
      conversation = addMessages(
        conversation,
        { role: "user", content: `question ${i}` },
        { role: "assistant", content: `answer ${i}` },
      );
    }
    fitToBudget(conversation, 100_000);
    encoded.mockClear();
    fitToBudget(addMessages(conversation, { role: "user", content: "one more" }), 100_000);
    expect(encoded.mock.calls.map(([text]) => text)).toEqual(["user", "one more"]);
  });
});

describe("counting tool definitions", () => {
  const tools: ChatCompletionTool[] = [
    {
      type: "function",
      function: {
        name: "read_file",
        description: "Read a file.",
        parameters: { type: "object", properties: { path: { type: "string" } } },
      },
    },
  ];

  it("counts each tool's JSON text, once, and nothing for no tools", () => {
    expect(countToolTokens([])).toBe(0);
    expect(countToolTokens(tools)).toBe(countTextTokens(JSON.stringify(tools[0])));
    expect(countToolTokens([...tools, ...tools])).toBe(2 * countToolTokens(tools));
    encoded.mockClear();
    countToolTokens(tools);
    expect(encoded).not.toHaveBeenCalled();
  });
});
