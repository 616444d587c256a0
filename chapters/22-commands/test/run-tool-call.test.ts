import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "../src/tools/define-tool.ts";
import { runToolCall } from "../src/tools/run-tool-call.ts";
import { ToolError } from "../src/tools/tool-error.ts";
import { WorkspacePathError } from "../src/fs/workspace-path.ts";

const context = { cwd: "/nowhere", signal: new AbortController().signal };

const greet = defineTool({
  name: "greet",
  description: "Greet someone.",
  effect: "read",
  schema: z.object({ name: z.string(), times: z.number().int().min(1).optional() }),
  async execute(args) {
    if (args.name === "boom") throw new Error("the greeter broke");
    if (args.name === "outside")
      throw new WorkspacePathError("path_escape", 'Path "../x" is outside.', "Stay inside.");
    if (args.name === "nobody")
      throw new ToolError("no_one", "There is nobody to greet.", "Pass a real name.");
    return { ok: true, content: `Hello, ${args.name}!`.repeat(args.times ?? 1) };
  },
});
const tools = [greet, defineTool({ ...greet, name: "wave" })];

function call(name: string, args: string) {
  return runToolCall(tools, { id: "call_1", function: { name, arguments: args } }, context);
}

// The texts below are read by the model: they are an API, and a change to one is a change to it.
describe("runToolCall", () => {
  it("runs a valid call and ties the result to the call's id", async () => {
    expect(await call("greet", '{"name":"Ada"}')).toEqual({
      tool_call_id: "call_1",
      content: "Hello, Ada!",
      ok: true,
    });
  });

  it("lists the available tools for an unknown one", async () => {
    expect(await call("grete", "{}")).toEqual({
      tool_call_id: "call_1",
      content: 'Error: unknown tool "grete". Available tools: greet, wave.',
      ok: false,
    });
  });

  it("explains arguments that are not JSON, and quotes what was sent", async () => {
    expect((await call("greet", '{"name": "Ada"')).content).toBe(
      'Error: the arguments for greet are not valid JSON: {"name": "Ada". ' +
        "Call greet again with its arguments as one JSON object.",
    );
  });

  it("cuts a long quote at 200 characters and says how long it was", async () => {
    expect((await call("greet", "x".repeat(500))).content).toBe(
      `Error: the arguments for greet are not valid JSON: ${"x".repeat(200)}… (500 characters). ` +
        "Call greet again with its arguments as one JSON object.",
    );
  });

  it("treats empty arguments as an empty object, which the schema then checks", async () => {
    expect((await call("greet", "  ")).content).toBe(
      "Error: invalid arguments for greet:\n" +
        "- name: Invalid input: expected string, received undefined\n" +
        "Call greet again with corrected arguments.",
    );
  });

  it("renders schema failures field by field", async () => {
    expect((await call("greet", '{"name": 42, "times": 0}')).content).toBe(
      "Error: invalid arguments for greet:\n" +
        "- name: Invalid input: expected string, received number\n" +
        "- times: Too small: expected number to be >=1\n" +
        "Call greet again with corrected arguments.",
    );
  });

  it("reports arguments that are not an object", async () => {
    expect((await call("greet", "[1]")).content).toBe(
      "Error: invalid arguments for greet:\n" +
        "- (arguments): Invalid input: expected object, received array\n" +
        "Call greet again with corrected arguments.",
    );
  });

  it("turns a ToolError into its code, message and hint", async () => {
    expect(await call("greet", '{"name":"nobody"}')).toEqual({
      tool_call_id: "call_1",
      content: "Error [no_one]: There is nobody to greet.\nHint: Pass a real name.",
      ok: false,
      code: "no_one",
    });
  });

  it("keeps a refused path's code and hint, like a ToolError's", async () => {
    expect(await call("greet", '{"name":"outside"}')).toEqual({
      tool_call_id: "call_1",
      content: 'Error [path_escape]: Path "../x" is outside.\nHint: Stay inside.',
      ok: false,
      code: "path_escape",
    });
  });

  it("turns an unexpected exception into a result, not a crash", async () => {
    expect(await call("greet", '{"name":"boom"}')).toEqual({
      tool_call_id: "call_1",
      content: "Error: greet failed: the greeter broke",
      ok: false,
    });
  });

  it("lets an abort propagate", async () => {
    const controller = new AbortController();
    const slow = defineTool({
      ...greet,
      name: "slow",
      async execute() {
        controller.abort();
        throw new Error("aborted");
      },
    });
    await expect(
      runToolCall(
        [slow],
        { id: "c", function: { name: "slow", arguments: '{"name":"x"}' } },
        { cwd: "/", signal: controller.signal },
      ),
    ).rejects.toThrow("aborted");
  });
});
