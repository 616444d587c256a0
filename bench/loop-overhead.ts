// What the harness costs per step of the Agent Loop, against a bare loop that does the least an
// agent must do: send the conversation, read the streamed answer, run the tool, append the answer
// and the result.
//
// Ours is the agent's own runTask (src/loop/run-task.ts), as `pnpm start -- "task"` calls it: a
// real RunLedger in the workspace's .agent/runs/ (every event flushed to disk), the real tools with
// run_command among them, read_file reading a real file and recording its hash, the tool runner,
// and before every request the compaction check and the context budget. The context budget is set
// far above the conversation, so the check runs every step and finds nothing to do: what is timed
// is the check, not a compaction (which is one more model call).
//
// Both loops talk to the same fake model, a child process streaming one read_file call per request
// (in its own process, so its work is in neither side's CPU time), through the same openai SDK
// client, with the same system prompt and tool schemas. Each run starts from the task alone and
// grows by two messages a step, as a real run does: every message is counted once, when it is new,
// and the ledger grows with it. A step's CPU and wall time are read between one tool result and the
// next; the figure at N messages is the mean of the `window` steps sent with N messages and more.
//
// The two are interleaved (ours, bare, bare, ours, ...) after a short warm-up of each, and each
// figure is the median over the rounds: the machine is shared and noisy.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { listChapters } from "../scripts/lib/chapters.ts";
import { summarise, type Sample, type Stats } from "./measure.ts";

export interface LoopOverheadOptions {
  /** Messages in the conversation (the system prompt not included) at which a step is timed. */
  sizes: number[];
  /** Steps timed at each size. */
  window: number;
  /** Measured runs per side. */
  rounds: number;
  /** An empty folder for the workspace the agent works in. */
  workspace: string;
  /** The chapter folder whose loop is measured; default the newest chapter with compaction. */
  chapterDir?: string;
}

export interface LoopPoint {
  messages: number;
  /** Per step, over the rounds. */
  ours: Stats;
  bare: Stats;
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
type Approver = () => Promise<string>;

interface ChapterModules {
  runTask(options: Record<string, unknown>): Promise<{
    outcome: { reason: string; message: string | null };
  }>;
  createModelClient(endpoint: { baseURL: string; apiKey: string; timeoutMs: number }): SdkClient;
  startConversation(systemPrompt: string): Conversation;
  buildSystemPrompt(workspace: string): Promise<string>;
  agentTools(approver: Approver, commands: Record<string, unknown>): unknown[];
  toOpenAITool(tool: unknown): unknown;
}

const TASK = "Find the bug in the cart and fix it.";
const TOOL_NAME = "read_file";
const FILE = "src/cart.ts";

/** Per step at each size: CPU and wall time of our runTask and of the bare SDK loop. */
export async function measureLoopOverhead(options: LoopOverheadOptions): Promise<LoopPoint[]> {
  const chapterDir =
    options.chapterDir ??
    listChapters()
      .filter((c) => c.number >= 26) // chapter 26 adds compaction, checked before every request
      .at(-1)?.dir;
  if (chapterDir === undefined) throw new Error("loop overhead: no chapter has compaction yet");
  const m = await loadChapter(chapterDir);
  const { workspace } = options;
  mkdirSync(join(workspace, "src"), { recursive: true });
  writeFileSync(join(workspace, FILE), cartSource());

  const server = await startFakeModel();
  try {
    const client = m.createModelClient({
      baseURL: server.baseURL,
      apiKey: "bench",
      timeoutMs: 60_000,
    });
    const systemPrompt = await m.buildSystemPrompt(workspace);
    // As `pnpm start` builds them: run_command among them, under deny (nothing is run here).
    const never: Approver = async () => "no_terminal";
    const commands = {
      policy: { mode: "deny", allowed: [] },
      approver: never,
      sandbox: undefined,
      timeoutMs: 0,
      secrets: [],
    };
    const schemas = m.agentTools(never, commands).map(m.toOpenAITool);

    // Step k (from 1) is sent with the task and the k - 1 steps before it: 2k - 1 messages.
    const firstStep = (messages: number): number => Math.max(2, Math.ceil((messages + 1) / 2));
    const stepsFor = (sizes: number[]): number =>
      Math.max(...sizes.map(firstStep)) + options.window - 1;

    const ours = async (steps: number): Promise<Sample[]> => {
      const marks = new Marks();
      const run = await m.runTask({
        workspace,
        task: TASK,
        conversation: m.startConversation(systemPrompt),
        client,
        model: "bench",
        maxRetries: 0,
        contextTokens: 100_000_000,
        budgets: { maxSteps: steps, maxTokens: Number.MAX_SAFE_INTEGER, maxTimeMs: 3_600_000 },
        approver: never,
        commands,
        signal: new AbortController().signal,
        events: { onToolCall: () => marks.mark() },
      });
      if (run.outcome.reason !== "budget") {
        throw new Error(`our loop stopped early: ${run.outcome.message}`);
      }
      return marks.steps(steps);
    };

    const bare = async (steps: number): Promise<Sample[]> => {
      const marks = new Marks();
      const messages: Message[] = [
        { role: "system", content: systemPrompt },
        { role: "user", content: TASK },
      ];
      for (let step = 0; step < steps; step++) {
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
          const { path } = JSON.parse(call.function.arguments) as { path: string };
          const content = numbered(await readFile(join(workspace, path), "utf8"));
          messages.push({ role: "tool", tool_call_id: call.id, content });
        }
        marks.mark();
      }
      return marks.steps(steps);
    };

    // Warm-up: JIT, the tokenizer, the page cache, on short runs.
    const warmup = stepsFor([options.sizes[0]!]);
    await ours(warmup);
    await bare(warmup);
    const steps = stepsFor(options.sizes);
    const runs = { ours: [] as Sample[][], bare: [] as Sample[][] };
    for (let round = 0; round < options.rounds; round++) {
      // Alternate which side goes first, so neither always runs on a warmer (or busier) machine.
      const order = round % 2 === 0 ? (["ours", "bare"] as const) : (["bare", "ours"] as const);
      for (const side of order) runs[side].push(await (side === "ours" ? ours : bare)(steps));
    }
    const at = (samples: Sample[][], messages: number): Stats => {
      const from = firstStep(messages) - 1;
      return summarise(samples.map((run) => mean(run.slice(from, from + options.window))));
    };
    return options.sizes.map((messages) => ({
      messages,
      ours: at(runs.ours, messages),
      bare: at(runs.bare, messages),
    }));
  } finally {
    await server.close();
  }
}

async function loadChapter(chapterDir: string): Promise<ChapterModules> {
  const load = async (file: string): Promise<Partial<ChapterModules>> =>
    (await import(pathToFileURL(join(chapterDir, "src", file)).href)) as Partial<ChapterModules>;
  const modules = await Promise.all(
    [
      "loop/run-task.ts",
      "model/model-client.ts",
      "context/conversation.ts",
      "prompts/system-prompt.ts",
      "loop/agent-tools.ts",
      "tools/define-tool.ts",
    ].map(load),
  );
  return Object.assign({}, ...modules) as ChapterModules;
}

/** CPU and wall time at the end of every step; the first mark is the start. */
class Marks {
  private readonly cpu: number[] = [];
  private readonly wall: number[] = [];

  constructor() {
    this.mark();
  }

  mark(): void {
    const used = process.cpuUsage();
    this.cpu.push((used.user + used.system) / 1000);
    this.wall.push(performance.now());
  }

  steps(expected: number): Sample[] {
    if (this.cpu.length !== expected + 1) {
      throw new Error(`loop overhead: ${this.cpu.length - 1} steps, expected ${expected}`);
    }
    return this.cpu.slice(1).map((cpu, i) => ({
      cpuMs: cpu - this.cpu[i]!,
      wallMs: this.wall[i + 1]! - this.wall[i]!,
    }));
  }
}

function mean(samples: Sample[]): Sample {
  const sum = (pick: (s: Sample) => number) => samples.reduce((a, s) => a + pick(s), 0);
  return {
    cpuMs: sum((s) => s.cpuMs) / samples.length,
    wallMs: sum((s) => s.wallMs) / samples.length,
  };
}

/** 40 lines of code, about 1,600 characters: a small file, as a run reads many. */
function cartSource(): string {
  return Array.from(
    { length: 40 },
    (_, line) => `export const item${line} = price(${line}, "item ${line}") * quantity(${line});\n`,
  ).join("");
}

/** The bare loop's read tool: the file's lines, numbered as read_file numbers them. */
function numbered(text: string): string {
  return text
    .split("\n")
    .map((line, i) => `${String(i + 1).padStart(5)}\t${line}`)
    .join("\n");
}

interface FakeModel {
  baseURL: string;
  close(): Promise<void>;
}

// The fake model, run by `node -e`: it streams one read_file call for every request, with usage,
// as an OpenAI server does, and prints its port when it listens.
const FAKE_MODEL = `
const http = require("node:http");
let served = 0;
const call = ${JSON.stringify({ name: TOOL_NAME, arguments: JSON.stringify({ path: FILE }) })};
const server = http.createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    served += 1;
    const base = { id: "chatcmpl-" + served, object: "chat.completion.chunk", created: 0 };
    const delta = { role: "assistant", tool_calls: [{ index: 0, id: "call_bench_" + served, type: "function", function: call }] };
    const events = [
      { ...base, choices: [{ index: 0, delta, finish_reason: null }] },
      { ...base, choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] },
      { ...base, choices: [], usage: { prompt_tokens: 50000, completion_tokens: 20, total_tokens: 50020 } },
    ];
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.end(events.map((e) => "data: " + JSON.stringify(e) + "\\n\\n").join("") + "data: [DONE]\\n\\n");
  });
});
server.listen(0, "127.0.0.1", () => console.log(server.address().port));
process.stdin.on("end", () => process.exit(0)).resume();
`;

/** Starts the fake model in a child process; it ends when its stdin closes (or we kill it). */
async function startFakeModel(): Promise<FakeModel> {
  const child: ChildProcess = spawn(process.execPath, ["-e", FAKE_MODEL], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes("\n")) resolve(Number(out.trim()));
    });
    child.on("error", reject);
    child.on("exit", (code) => reject(new Error(`the fake model exited (${code})`)));
  });
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.on("exit", () => resolve());
        child.stdin!.end();
      }),
  };
}
