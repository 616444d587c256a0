import type { ChatCompletionTool } from "openai/resources/chat/completions";
import { describe, expect, it } from "vitest";
import { ContextBudgetError, droppedLine, fitToBudget } from "../src/context/context-budget.ts";
import {
  addMessages,
  requestMessages,
  startConversation,
  type ChatMessage,
} from "../src/context/conversation.ts";
import {
  countMessageTokens,
  countRequestTokens,
  countToolTokens,
} from "../src/context/token-counter.ts";

const user = (content: string): ChatMessage => ({ role: "user", content });
const assistant = (content: string): ChatMessage => ({ role: "assistant", content });
const system = "You are terse.";

function conversationOf(...history: ChatMessage[]) {
  return addMessages(startConversation(system), ...history);
}

function tokensOf(messages: ChatMessage[]): number {
  return messages.reduce((sum, message) => sum + countMessageTokens(message), 0);
}

describe("fitToBudget", () => {
  it("keeps an empty conversation as it is", () => {
    const conversation = startConversation(system);
    const fitted = fitToBudget(conversation, 1000);
    expect(fitted).toEqual({
      conversation,
      tokens: countRequestTokens(requestMessages(conversation)),
      dropped: { messages: 0, tokens: 0 },
    });
  });

  it("drops nothing when the request is exactly at the budget, and the oldest turn one token over", () => {
    const conversation = conversationOf(
      user("first question"),
      assistant("first answer"),
      user("second"),
    );
    const exact = countRequestTokens(requestMessages(conversation));
    expect(fitToBudget(conversation, exact)).toMatchObject({
      tokens: exact,
      dropped: { messages: 0 },
    });

    const fitted = fitToBudget(conversation, exact - 1);
    const droppedTokens = tokensOf([user("first question"), assistant("first answer")]);
    expect(fitted.dropped).toEqual({ messages: 2, tokens: droppedTokens });
    expect(fitted.conversation.history).toEqual([user("second")]);
    expect(fitted.tokens).toBe(exact - droppedTokens);
    expect(fitted.conversation.system).toEqual({ role: "system", content: system });
  });

  it("drops as many old turns as needed, oldest first, and keeps the latest", () => {
    const history = [
      user("a"),
      assistant("A"),
      user("b"),
      assistant("B"),
      user("c"),
      assistant("C"),
      user("d"),
    ];
    const conversation = conversationOf(...history);
    const lastTwoTurns = countRequestTokens([
      { role: "system", content: system },
      ...history.slice(4),
    ]);
    const fitted = fitToBudget(conversation, lastTwoTurns);
    expect(fitted.conversation.history).toEqual(history.slice(4));
    expect(fitted.dropped.messages).toBe(4);
  });

  it("drops an old message larger than the whole budget and keeps going", () => {
    const huge = user("word ".repeat(500));
    const conversation = conversationOf(huge, assistant("ok"), user("short question"));
    const fitted = fitToBudget(conversation, 100);
    expect(fitted.conversation.history).toEqual([user("short question")]);
    expect(fitted.dropped).toEqual({ messages: 2, tokens: tokensOf([huge, assistant("ok")]) });
  });

  it("refuses a latest message larger than the budget, with what to do", () => {
    const conversation = conversationOf(user("hi"), assistant("hello"), user("word ".repeat(500)));
    const systemTokens = countRequestTokens([{ role: "system", content: system }]);
    const latest = countMessageTokens(user("word ".repeat(500)));
    expect(() => fitToBudget(conversation, 100)).toThrow(
      new ContextBudgetError(
        `the latest message needs ${latest} tokens; with the system prompt that is ${latest + systemTokens}, more than the 100-token budget: shorten the message, or raise AGENT_CONTEXT_TOKENS`,
      ),
    );
  });

  it("refuses a system prompt that alone exceeds the budget", () => {
    const conversation = addMessages(startConversation("rule ".repeat(100)), user("hi"));
    expect(() => fitToBudget(conversation, 50)).toThrow(
      new ContextBudgetError(
        "the system prompt alone needs 108 tokens, more than the 50-token budget: raise AGENT_CONTEXT_TOKENS",
      ),
    );
  });

  it("counts the tool definitions in every request, and never drops them", () => {
    const tools: ChatCompletionTool[] = [
      {
        type: "function",
        function: {
          name: "read_file",
          description: "Read a file of the workspace.",
          parameters: { type: "object", properties: { path: { type: "string" } } },
        },
      },
    ];
    const conversation = conversationOf(
      user("first question"),
      assistant("first answer"),
      user("second"),
    );
    const exact = countRequestTokens(requestMessages(conversation)) + countToolTokens(tools);
    expect(fitToBudget(conversation, exact, tools)).toMatchObject({
      tokens: exact,
      dropped: { messages: 0 },
    });
    expect(fitToBudget(conversation, exact - 1, tools).dropped.messages).toBe(2);

    const fixed =
      countRequestTokens([{ role: "system", content: system }]) + countToolTokens(tools);
    expect(() => fitToBudget(conversation, fixed - 1, tools)).toThrow(
      new ContextBudgetError(
        `the system prompt and the tools alone need ${fixed} tokens, more than the ${fixed - 1}-token budget: raise AGENT_CONTEXT_TOKENS`,
      ),
    );
    const latest = countMessageTokens(user("second"));
    expect(() => fitToBudget(conversation, fixed, tools)).toThrow(
      new ContextBudgetError(
        `the latest message needs ${latest} tokens; with the system prompt and the tools that is ${fixed + latest}, more than the ${fixed}-token budget: shorten the message, or raise AGENT_CONTEXT_TOKENS`,
      ),
    );
  });

  it("keeps tool calls and their results together with their turn", () => {
    const toolCall: ChatMessage = {
      role: "assistant",
      content: null,
      tool_calls: [
        { id: "c1", type: "function", function: { name: "read_file", arguments: '{"path":"a"}' } },
      ],
    };
    const toolResult: ChatMessage = { role: "tool", tool_call_id: "c1", content: "x".repeat(200) };
    const oldTurn = [user("read a"), toolCall, toolResult, assistant("a says x")];
    const latestTurn = [user("read it again"), toolCall, toolResult];
    const conversation = conversationOf(...oldTurn, ...latestTurn);

    // Room for the latest turn only: the whole old turn goes, tool result included.
    const budget = countRequestTokens([{ role: "system", content: system }, ...latestTurn]);
    const fitted = fitToBudget(conversation, budget);
    expect(fitted.conversation.history).toEqual(latestTurn);
    expect(fitted.dropped).toEqual({ messages: 4, tokens: tokensOf(oldTurn) });
    // Never a tool result without the call it answers.
    expect(fitted.conversation.history[0]).toEqual(user("read it again"));
  });
});

describe("droppedLine", () => {
  it("reports what was dropped in one line, and nothing when nothing was", () => {
    expect(droppedLine({ messages: 3, tokens: 120 }, 32_000)).toBe(
      "context: dropped 3 old messages (120 tokens) to fit the 32000-token budget",
    );
    expect(droppedLine({ messages: 1, tokens: 9 }, 500)).toBe(
      "context: dropped 1 old message (9 tokens) to fit the 500-token budget",
    );
    expect(droppedLine({ messages: 0, tokens: 0 }, 500)).toBeUndefined();
  });
});
