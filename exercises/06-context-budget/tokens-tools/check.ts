// Exercise "Count what /tokens leaves out": /tokens shows what the next request will cost, the
// tool definitions included, since fitToBudget counts them too; without tools the line is as before.
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

interface Message {
  role: string;
  content?: unknown;
}

interface Chat {
  runChat(options: {
    client: unknown;
    endpoint: {
      baseURL: string;
      apiKey: string;
      model: string;
      timeoutMs: number;
      maxRetries: number;
      close(): Promise<void>;
    };
    contextTokens: number;
    tools: readonly unknown[];
    workspace: string;
    lines: string[];
    write: (text: string) => void;
    note: (line: string) => void;
    interactive: boolean;
    systemPrompt?: string;
  }): Promise<number>;
}

interface TokenCounter {
  countRequestTokens(messages: readonly Message[]): number;
  countToolTokens(tools: readonly unknown[]): number;
}

const SYSTEM = "Be brief.";

export default async function check(chapterDir: string): Promise<void> {
  const load = (file: string) => import(pathToFileURL(join(chapterDir, file)).href);
  const { runChat } = (await load("src/context/chat.ts")) as Chat;
  const { countRequestTokens, countToolTokens } = (await load(
    "src/context/token-counter.ts",
  )) as TokenCounter;
  const { workspaceTools } = (await load("src/tools/workspace-tools.ts")) as {
    workspaceTools: readonly unknown[];
  };
  const { toOpenAITool } = (await load("src/tools/define-tool.ts")) as {
    toOpenAITool(tool: unknown): unknown;
  };

  /** The note `/tokens` prints in a chat with these tools (no model is asked). */
  async function tokensNote(tools: readonly unknown[]): Promise<string> {
    const notes: string[] = [];
    const endpoint = {
      baseURL: "http://127.0.0.1:9/v1",
      apiKey: "local",
      model: "m",
      timeoutMs: 1_000,
      maxRetries: 0,
      close: async () => {},
    };
    await runChat({
      client: undefined, // /tokens asks no model
      endpoint,
      contextTokens: 32_000,
      tools,
      workspace: chapterDir,
      lines: ["/tokens"],
      write: () => {},
      note: (line) => notes.push(line),
      interactive: false,
      systemPrompt: SYSTEM,
    });
    assert.equal(notes.length, 1, `/tokens should print one line, got:\n${notes.join("\n")}`);
    return notes[0]!;
  }

  const messages = countRequestTokens([{ role: "system", content: SYSTEM }]);
  const tools = countToolTokens(workspaceTools.map(toOpenAITool));
  const line = await tokensNote(workspaceTools);
  const shown = Number(/^context: (\d+) of 32000 tokens/.exec(line)?.[1]);
  assert.equal(
    shown,
    messages + tools,
    `/tokens should count the system prompt (${messages} tokens) and the tool definitions (${tools}), as fitToBudget does; it says: ${line}`,
  );
  assert.match(line, /3 tools/, `say that the three tools are counted, got: ${line}`);
  assert.equal(
    await tokensNote([]),
    `context: ${messages} of 32000 tokens (1 message, system prompt included)`,
    "without tools, the line should be as it was",
  );
}
