import { describe, expect, it } from "vitest";
import {
  addMessages,
  requestMessages,
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
});
