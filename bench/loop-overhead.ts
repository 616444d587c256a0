// What the harness costs per step of the Agent Loop, against a bare loop that does the least an
// agent must do: send the conversation, read the streamed answer, append it and a tool result.
//
// Both loops talk to the same fake model, an in-process HTTP server that streams one tool call per
// request, through the same openai SDK client; both start from the same conversation of
// `messages` messages and add the same two messages per step. So the difference between them is
// the harness: fitting the context budget, the budgets, the tool batch, the stream assembler,
// events. Running the tool and writing the ledger are stubbed out on our side (the bare loop does
// neither), so they are not in the comparison.
//
// The two are interleaved (ours, bare, ours, bare, ...) after a warm-up of each, and each side's
// figure is the median over the rounds: the machine is shared and noisy.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { listChapters } from "../scripts/lib/chapters.ts";

export interface LoopOverheadOptions {
  /** Messages in the conversation before the first step (the system prompt not included). */
  messages: number;
  /** Model calls per measured run. */
  steps: number;
  /** Measured runs per side; default 5. */
  rounds?: number;
  /** The chapter folder whose loop is measured; default the newest chapter with the Agent Loop. */
  chapterDir?: string;
}

export interface LoopOverhead {
  oursMsPerStep: number;
  bareMsPerStep: number;
}

// The few shapes this file uses, declared here: the chapters, not the repository root, depend on
// the openai SDK, so its types are out of reach from bench/.
type Message = Record<string, unknown> & { role: string };
interface ToolCallDelta {
  index: number;
  id?: string;
  function?: { name?: string; arguments?: string };
}
interface Chunk {
  choices: Array<{ delta: { tool_calls?: ToolCallDelta[] } }>;
}
interface SdkClient {
  chat: {
    completions: {
      create(body: Record<string, unknown>): Promise<AsyncIterable<Chunk>>;
    };
  };
}
interface ToolCallRequest {
  id: string;
  function: { name: string; arguments: string };
}
interface Conversation {
  system: Message;
  history: Message[];
}
interface AgentLoopModule {
  runAgentLoop(
    options: Record<string, unknown>,
  ): Promise<{ reason: string; message: string | null }>;
}

const TOOL_NAME = "read_file";

/** Per step: ms of our Agent Loop (newest chapter) and of the bare SDK loop, same fake model. */
export async function measureLoopOverhead(options: LoopOverheadOptions): Promise<LoopOverhead> {
  const chapterDir =
    options.chapterDir ??
    listChapters()
      .filter((c) => c.number >= 18) // chapter 18 adds the Agent Loop
      .at(-1)?.dir;
  if (chapterDir === undefined) throw new Error("loop overhead: no chapter has the Agent Loop yet");
  const load = (file: string): Promise<unknown> =>
    import(pathToFileURL(join(chapterDir, "src", file)).href);
  const { runAgentLoop } = (await load("loop/agent-loop.ts")) as AgentLoopModule;
  const { BudgetTracker } = (await load("loop/budgets.ts")) as {
    BudgetTracker: new (budgets: Record<string, number>) => unknown;
  };
  const { createModelClient } = (await load("model/model-client.ts")) as {
    createModelClient(endpoint: { baseURL: string; apiKey: string; timeoutMs: number }): SdkClient;
  };
  const { agentTools } = (await load("loop/agent-tools.ts")) as {
    agentTools(approver: () => Promise<string>): unknown[];
  };
  const { toOpenAITool } = (await load("tools/define-tool.ts")) as {
    toOpenAITool(tool: unknown): unknown;
  };

  const server = await startFakeModel();
  const client = createModelClient({ baseURL: server.baseURL, apiKey: "bench", timeoutMs: 60_000 });
  const start = conversationOf(options.messages);
  // The agent's real tools, so both loops send the schemas a run sends. (Nothing is approved:
  // no tool runs here.)
  const tools = agentTools(async () => "declined");
  const schemas = tools.map(toOpenAITool);
  const resultText = toolResultText(0);

  const ours = async (): Promise<number> => {
    const began = performance.now();
    const outcome = await runAgentLoop({
      client,
      model: "bench",
      maxRetries: 0,
      contextTokens: 10_000_000,
      conversation: start,
      tools,
      runCall: async (call: ToolCallRequest) => ({
        tool_call_id: call.id,
        ok: true,
        content: resultText,
      }),
      ledger: { recordModelCall: async () => {} },
      budgets: new BudgetTracker({
        maxSteps: options.steps,
        maxTokens: Number.MAX_SAFE_INTEGER,
        maxTimeMs: 60 * 60_000,
      }),
      signal: new AbortController().signal,
    });
    if (outcome.reason !== "budget") throw new Error(`our loop stopped early: ${outcome.message}`);
    return (performance.now() - began) / options.steps;
  };

  const bare = async (): Promise<number> => {
    const began = performance.now();
    const messages = [start.system, ...start.history];
    for (let step = 0; step < options.steps; step++) {
      const stream = await client.chat.completions.create({
        model: "bench",
        messages,
        tools: schemas,
        stream: true,
        stream_options: { include_usage: true },
      });
      const calls: ToolCallRequest[] = [];
      for await (const chunk of stream) {
        for (const delta of chunk.choices[0]?.delta.tool_calls ?? []) {
          const call = (calls[delta.index] ??= { id: "", function: { name: "", arguments: "" } });
          if (delta.id) call.id = delta.id;
          if (delta.function?.name) call.function.name = delta.function.name;
          call.function.arguments += delta.function?.arguments ?? "";
        }
      }
      messages.push({
        role: "assistant",
        content: null,
        tool_calls: calls.map((call) => ({ ...call, type: "function" })),
      });
      for (const call of calls) {
        messages.push({ role: "tool", tool_call_id: call.id, content: resultText });
      }
    }
    return (performance.now() - began) / options.steps;
  };

  try {
    await ours();
    await bare();
    const oursRuns: number[] = [];
    const bareRuns: number[] = [];
    for (let round = 0; round < (options.rounds ?? 5); round++) {
      oursRuns.push(await ours());
      bareRuns.push(await bare());
    }
    return { oursMsPerStep: median(oursRuns), bareMsPerStep: median(bareRuns) };
  } finally {
    await server.close();
  }
}

/**
 * A conversation as a run builds it: the task, then the model reading files one call at a time,
 * each call answered by a file's numbered lines. Every message is a new object, as in a real run.
 */
function conversationOf(messages: number): Conversation {
  const history: Message[] = [{ role: "user", content: "Find the bug in the cart and fix it." }];
  for (let i = 0; history.length < messages; i++) {
    const id = `call_${i}`;
    history.push({
      role: "assistant",
      content: null,
      tool_calls: [
        {
          id,
          type: "function",
          function: { name: TOOL_NAME, arguments: JSON.stringify({ path: `src/file${i}.ts` }) },
        },
      ],
    });
    if (history.length < messages) {
      history.push({ role: "tool", tool_call_id: id, content: toolResultText(i) });
    }
  }
  return {
    system: { role: "system", content: "You are a coding agent. ".repeat(150) },
    history,
  };
}

/** About 40 numbered lines of code, 1,600 characters: what read_file returns for a small file. */
function toolResultText(seed: number): string {
  return Array.from(
    { length: 40 },
    (_, line) =>
      `${line + 1}: export const value${seed}_${line} = compute(${line}, "item ${seed}");`,
  ).join("\n");
}

interface FakeModel {
  baseURL: string;
  close(): Promise<void>;
}

/** Streams one read_file call for every request, with usage, as an OpenAI server does. */
async function startFakeModel(): Promise<FakeModel> {
  let served = 0;
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      served += 1;
      const base = { id: `chatcmpl-${served}`, object: "chat.completion.chunk", created: 0 };
      const events = [
        {
          ...base,
          choices: [
            {
              index: 0,
              delta: {
                role: "assistant",
                tool_calls: [
                  {
                    index: 0,
                    id: `call_bench_${served}`,
                    type: "function",
                    function: { name: TOOL_NAME, arguments: '{"path":"src/cart.ts"}' },
                  },
                ],
              },
              finish_reason: null,
            },
          ],
        },
        { ...base, choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] },
        {
          ...base,
          choices: [],
          usage: { prompt_tokens: 50_000, completion_tokens: 20, total_tokens: 50_020 },
        },
      ];
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(
        events.map((event) => `data: ${JSON.stringify(event)}\n\n`).join("") + "data: [DONE]\n\n",
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
