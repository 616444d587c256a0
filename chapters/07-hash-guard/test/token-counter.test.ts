import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { describe, expect, it } from "vitest";
import {
  countMessageTokens,
  countRequestTokens,
  countTextTokens,
  REPLY_PRIMING_TOKENS,
  TOKENS_PER_MESSAGE,
} from "../src/context/token-counter.ts";

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
