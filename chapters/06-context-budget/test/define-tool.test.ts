import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, toOpenAITool } from "../src/tools/define-tool.ts";
import { workspaceTools } from "../src/tools/workspace-tools.ts";

describe("defineTool and toOpenAITool", () => {
  const echo = defineTool({
    name: "echo",
    description: "Echo the text back.",
    effect: "read",
    schema: z.object({
      text: z.string().describe("What to echo"),
      times: z.number().int().min(1).default(1),
    }),
    async execute(args) {
      // args is typed from the schema: text is a string, times a number (default applied).
      return { ok: true, content: args.text.repeat(args.times) };
    },
  });

  it("turns the zod schema into the function-calling JSON schema", () => {
    expect(toOpenAITool(echo)).toEqual({
      type: "function",
      function: {
        name: "echo",
        description: "Echo the text back.",
        parameters: {
          type: "object",
          properties: {
            text: { type: "string", description: "What to echo" },
            times: { type: "integer", minimum: 1, maximum: Number.MAX_SAFE_INTEGER, default: 1 },
          },
          required: ["text"],
        },
      },
    });
  });

  it("refuses a name the API would reject", () => {
    expect(() => defineTool({ ...echo, name: "read file" })).toThrow(
      'Tool name "read file" is invalid: use 1-64 letters, digits, "_" or "-".',
    );
  });

  it("offers the first agent's three tools, each with an object schema and its effect", () => {
    expect(workspaceTools.map((tool) => [tool.name, tool.effect])).toEqual([
      ["list_files", "read"],
      ["read_file", "read"],
      ["edit_file", "write"],
    ]);
    for (const tool of workspaceTools) {
      expect(toOpenAITool(tool).function.parameters?.type).toBe("object");
    }
    expect(toOpenAITool(workspaceTools[2]!).function.parameters?.required).toEqual([
      "path",
      "old_text",
      "new_text",
    ]);
  });
});
