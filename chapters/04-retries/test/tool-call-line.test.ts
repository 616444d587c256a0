import { describe, expect, it } from "vitest";
import { toolCallLine } from "../src/tools/tool-call-line.ts";

const call = (name: string, args: string) => ({ id: "c1", function: { name, arguments: args } });
const result = (ok: boolean, content: string) => ({ tool_call_id: "c1", ok, content });

describe("toolCallLine", () => {
  it("shows the name, the path when there is one, and the status", () => {
    expect(toolCallLine(call("read_file", '{"path":"src/a.ts"}'), result(true, "…"))).toBe(
      "→ read_file src/a.ts  ok",
    );
    expect(toolCallLine(call("list_files", "{}"), result(true, "…"))).toBe("→ list_files  ok");
    expect(toolCallLine(call("edit_file", "{not json"), result(false, "Error: bad\nmore"))).toBe(
      "→ edit_file  failed: Error: bad",
    );
  });

  it("writes out escape codes in the model's tool name, its arguments and the failure line", () => {
    const hostile = call("read\x1b]0;owned\x07_file", '{"path":"a\\u001b[2K\\rb.ts"}');
    const failed = result(false, "Error [file_not_found]: a\x1b[8m.ts does not exist.\nmore");
    expect(toolCallLine(hostile, failed)).toBe(
      "→ read\\x1b]0;owned\\x07_file a\\x1b[2K\\x0db.ts  failed: Error [file_not_found]: a\\x1b[8m.ts does not exist.",
    );
  });
});
