import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import { describe, expect, it } from "vitest";
import {
  AnswerTooLongError,
  MAX_ANSWER_CHARS,
  StreamAssembler,
  StreamCutError,
} from "../src/model/stream-assembler.ts";

function chunk(
  delta: ChatCompletionChunk.Choice["delta"],
  finish_reason: ChatCompletionChunk.Choice["finish_reason"] = null,
): ChatCompletionChunk {
  return {
    id: "c1",
    object: "chat.completion.chunk",
    created: 0,
    model: "m",
    choices: [{ index: 0, delta, finish_reason }],
  };
}

describe("StreamAssembler", () => {
  it("joins text pieces and returns each piece for printing", () => {
    const assembler = new StreamAssembler();
    expect(assembler.push(chunk({ role: "assistant", content: "Hel" }))).toBe("Hel");
    expect(assembler.push(chunk({ content: "lo" }))).toBe("lo");
    expect(assembler.push(chunk({}, "stop"))).toBe("");
    const usage = { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 };
    assembler.push({ ...chunk({}), choices: [], usage });
    expect(assembler.finish()).toEqual({
      message: { role: "assistant", content: "Hello" },
      usage,
      finishReason: "stop",
    });
  });

  it("reassembles interleaved tool calls by index, concatenating argument slices", () => {
    const assembler = new StreamAssembler();
    const call = (
      index: number,
      fields: Omit<ChatCompletionChunk.Choice.Delta.ToolCall, "index">,
    ) => chunk({ tool_calls: [{ index, ...fields }] });
    assembler.push(
      call(1, { id: "b", type: "function", function: { name: "list_files", arguments: "" } }),
    );
    assembler.push(
      call(0, { id: "a", type: "function", function: { name: "read_file", arguments: '{"pa' } }),
    );
    assembler.push(call(1, { function: { arguments: "{}" } }));
    assembler.push(call(0, { function: { arguments: 'th":"a.ts"}' } }));
    assembler.push(chunk({}, "tool_calls"));
    expect(assembler.finish()).toEqual({
      message: {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "a",
            type: "function",
            function: { name: "read_file", arguments: '{"path":"a.ts"}' },
          },
          { id: "b", type: "function", function: { name: "list_files", arguments: "{}" } },
        ],
      },
      usage: null,
      finishReason: "tool_calls",
    });
  });

  it("refuses to hand out half a message when no finish_reason arrived", () => {
    const assembler = new StreamAssembler();
    assembler.push(chunk({ content: "Half an ans" }));
    expect(() => assembler.finish()).toThrow(StreamCutError);
  });

  it("stops an answer that grows past its size limit, counting text and tool-call arguments", () => {
    expect(MAX_ANSWER_CHARS).toBe(4_000_000);
    const assembler = new StreamAssembler(10);
    assembler.push(chunk({ content: "12345" }));
    const args = (text: string) =>
      chunk({ tool_calls: [{ index: 0, function: { name: "f", arguments: text } }] });
    assembler.push(args("67890"));
    expect(() => assembler.push(args("1"))).toThrow(
      "the answer passed 10 characters without finishing",
    );
    expect(() => new StreamAssembler(10).push(chunk({ content: "x".repeat(11) }))).toThrow(
      AnswerTooLongError,
    );
  });
});
