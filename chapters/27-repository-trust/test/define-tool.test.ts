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
            // Without zod's safe-integer bounds, which only cost tokens.
            times: { type: "integer", minimum: 1, default: 1 },
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

  it("gives every workspace tool an object schema and a read effect", () => {
    for (const tool of workspaceTools) {
      const { parameters } = toOpenAITool(tool).function;
      expect(parameters?.type).toBe("object");
      expect(tool.effect).toBe("read");
    }
    expect(workspaceTools.map((tool) => tool.name)).toEqual([
      "list_files",
      "read_file",
      "search_text",
    ]);
  });
});
