import { describe, expect, it } from "vitest";
import {
  notTheDemoRepository,
  selectStep,
  listScripts,
  loadScript,
  parseScript,
  ScriptError,
  SCRIPTS_DIR,
} from "../src/offline-model/index.ts";

describe("loadScript", () => {
  it("loads every script in shared/scripts, each labelled as scripted", () => {
    expect(listScripts()).toEqual(expect.arrayContaining(["chat", "explain-repo", "fix-bug"]));
    for (const name of listScripts()) {
      const script = loadScript(name);
      expect(script.name).toBe(name);
      expect(script.description).toMatch(/^Scripted (demo|test) \(offline model, no AI\): /);
    }
  });

  it("turns tool-call arguments written as objects into JSON text", () => {
    const call = loadScript("explain-repo").steps[0]?.reply.toolCalls?.[0];
    expect(call).toEqual({ id: "call_list_files", name: "list_files", arguments: "{}" });
  });

  it("names the available scripts when one is unknown", () => {
    expect(() => loadScript("nope")).toThrow(ScriptError);
    expect(() => loadScript("nope")).toThrow(
      `unknown script "nope": there is no file ${SCRIPTS_DIR}nope.json. Available scripts: ${listScripts().join(", ")}.`,
    );
  });

  it("refuses names that are paths", () => {
    expect(() => loadScript("../package")).toThrow(
      `invalid script name "../package": use the file name without ".json" (lowercase letters, digits, dashes). Available scripts: ${listScripts().join(", ")}.`,
    );
  });
});

describe("parseScript", () => {
  const valid = {
    name: "t",
    description: "d",
    steps: [{ reply: { content: "hi" } }],
  };
  const errorFor = (value: unknown): string => {
    try {
      parseScript(value, "t.json");
    } catch (error) {
      expect(error).toBeInstanceOf(ScriptError);
      return (error as Error).message;
    }
    throw new Error("expected parseScript to throw");
  };

  it("accepts a minimal script", () => {
    expect(parseScript(valid, "t.json")).toEqual(valid);
  });

  it("pins its error texts", () => {
    expect(errorFor([])).toBe(
      "invalid script t.json: the top level must be an object, got an array.",
    );
    expect(errorFor({ ...valid, name: "" })).toBe(
      'invalid script t.json: "name" must be a non-empty string, got string "".',
    );
    expect(errorFor({ ...valid, steps: [] })).toBe(
      'invalid script t.json: "steps" must be a non-empty array of steps.',
    );
    expect(errorFor({ ...valid, stpes: [] })).toBe(
      'invalid script t.json: the top level has an unknown key "stpes" (allowed: name, description, steps, repeatLastStep, demoRepository, sequential).',
    );
    expect(errorFor({ ...valid, steps: [{ reply: {} }] })).toBe(
      'invalid script t.json: steps[0].reply needs "content", "toolCalls" or both.',
    );
    expect(
      errorFor({
        ...valid,
        steps: [{ expect: { lastMessageRole: "assistant" }, reply: { content: "x" } }],
      }),
    ).toBe(
      'invalid script t.json: steps[0].expect.lastMessageRole must be "user" or "tool", got string "assistant".',
    );
    expect(
      errorFor({
        ...valid,
        steps: [{ reply: { toolCalls: [{ id: "c", name: "f", arguments: "{oops" }] } }],
      }),
    ).toBe(
      "invalid script t.json: steps[0].reply.toolCalls[0].arguments is not the JSON text of an object. Write it as a JSON object instead.",
    );
    expect(
      errorFor({
        ...valid,
        steps: [{ reply: { toolCalls: [{ id: "c", name: "f", arguments: 3 }] } }],
      }),
    ).toBe(
      "invalid script t.json: steps[0].reply.toolCalls[0].arguments must be a JSON object or its JSON text, got number 3.",
    );
    expect(errorFor({ ...valid, repeatLastStep: "yes" })).toBe(
      'invalid script t.json: "repeatLastStep" must be true or false, got string "yes".',
    );
  });
});

describe("a demo-repository script on another folder", () => {
  const request = (toolResult: string) => ({
    model: "offline",
    messages: [
      { role: "user" as const, content: "fix the bug" },
      {
        role: "assistant" as const,
        content: "",
        tool_calls: [
          {
            id: "call_read_cart",
            type: "function" as const,
            function: { name: "read_file", arguments: '{"path":"src/cart.mjs"}' },
          },
        ],
      },
      { role: "tool" as const, tool_call_id: "call_read_cart", content: toolResult },
    ],
    tools: [{ type: "function" as const, function: { name: "apply_patch" } }],
  });
  const missing = "Error [file_not_found]: src/cart.mjs does not exist.";

  it("says the demo only fits its repository and stops, instead of replaying the fix", () => {
    const selection = selectStep(loadScript("fix-bug"), request(missing));
    expect(selection).toEqual({
      ok: true,
      index: 1,
      reply: { content: notTheDemoRepository(missing) },
    });
    expect(notTheDemoRepository(missing)).toContain(
      "only fits the tutorial's demo repository (shared/demo-repo)",
    );
  });

  it("replays the script when the file was there", () => {
    const selection = selectStep(loadScript("fix-bug"), request("export function total() {}"));
    expect(selection.ok && selection.reply.toolCalls?.[0]?.name).toBe("apply_patch");
  });
});

describe("a sequential script", () => {
  const script = parseScript(
    {
      name: "t",
      description: "d",
      sequential: true,
      steps: [{ reply: { content: "one" } }, { reply: { content: "two" } }],
    },
    "t.json",
  );
  // A compacted history: fewer assistant messages than steps already replied.
  const request = {
    model: "offline",
    messages: [{ role: "user" as const, content: "[Context compacted: …]" }],
  };

  it("picks the step by the number replied so far, not by the assistant messages", () => {
    expect(script.sequential).toBe(true);
    expect(selectStep(script, request, 1)).toEqual({
      ok: true,
      index: 1,
      reply: { content: "two" },
    });
    expect(selectStep(script, request)).toEqual({ ok: true, index: 0, reply: { content: "one" } });
  });

  it("says when it is over", () => {
    const over = selectStep(script, request, 2);
    expect(over.ok === false && over.message).toContain(
      "but 2 steps were replied already, so it asks for step 2.",
    );
  });
});
