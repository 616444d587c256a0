import { describe, expect, it } from "vitest";
import {
  addMessages,
  requestMessages,
  splitTurns,
  startConversation,
  type ChatMessage,
} from "../src/context/conversation.ts";

const user = (content: string): ChatMessage => ({ role: "user", content });
const assistant = (content: string): ChatMessage => ({ role: "assistant", content });

describe("conversation", () => {
  it("is plain data: the system prompt first, then the history", () => {
    const empty = startConversation("Be brief.");
    const next = addMessages(empty, user("hi"), assistant("hello"));
    expect(requestMessages(next)).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "hi" },
      { role: "assistant", content: "hello" },
    ]);
    expect(empty.history).toEqual([]); // adding returns a new conversation
  });

  it("splits history into turns that start at each user message", () => {
    const toolCall: ChatMessage = {
      role: "assistant",
      content: null,
      tool_calls: [
        { id: "c1", type: "function", function: { name: "list_files", arguments: "{}" } },
      ],
    };
    const toolResult: ChatMessage = { role: "tool", tool_call_id: "c1", content: "a.ts" };
    expect(splitTurns([user("1"), toolCall, toolResult, assistant("done"), user("2")])).toEqual([
      [user("1"), toolCall, toolResult, assistant("done")],
      [user("2")],
    ]);
    expect(splitTurns([])).toEqual([]);
    expect(splitTurns([assistant("welcome"), user("1")])).toEqual([
      [assistant("welcome")],
      [user("1")],
    ]);
  });
});
