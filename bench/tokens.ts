// Tokens: what every model call pays before the conversation starts, the system prompt (what
// `pnpm start -- --print-prompt` prints) plus the tool schemas, counted by the newest chapter's own
// token counter, for an empty workspace (no AGENTS.md, not a git repository).
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { listChapters } from "../scripts/lib/chapters.ts";
import type { BenchContext, SectionResult } from "./context.ts";
import { row } from "./report.ts";

export const TOKEN_LIMIT = 1_500;

interface PromptModules {
  buildSystemPrompt(workspace: string): Promise<string>;
  countMessageTokens(message: { role: "system"; content: string }): number;
  countToolTokens(tools: unknown[]): number;
  agentTools(approver: () => Promise<string>): unknown[];
  toOpenAITool(tool: unknown): unknown;
}

async function loadPromptModules(): Promise<PromptModules> {
  const chapter = listChapters()
    .filter((c) => c.number >= 18) // the system prompt (17) and the agent's tool list (18)
    .at(-1);
  if (chapter === undefined) throw new Error("pnpm bench: no chapter with the Agent Loop yet");
  const load = async (file: string): Promise<Partial<PromptModules>> =>
    (await import(pathToFileURL(join(chapter.dir, "src", file)).href)) as Partial<PromptModules>;
  return {
    ...(await load("prompts/system-prompt.ts")),
    ...(await load("context/token-counter.ts")),
    ...(await load("loop/agent-tools.ts")),
    ...(await load("tools/define-tool.ts")),
  } as PromptModules;
}

export async function measureTokens(context: BenchContext): Promise<SectionResult> {
  const m = await loadPromptModules();
  const workspace = join(context.scratch, "empty-workspace");
  mkdirSync(workspace, { recursive: true });
  const prompt = m.countMessageTokens({
    role: "system",
    content: await m.buildSystemPrompt(workspace),
  });
  const tools = m.countToolTokens(m.agentTools(async () => "declined").map(m.toOpenAITool));
  const total = prompt + tools;
  return {
    rows: [
      row({
        section: "Tokens",
        measure: "system prompt + tool schemas, sent with every model call",
        label: "Prompt + tool schema tokens",
        ours: `system prompt ${prompt} + tool schemas ${tools}`,
        reference: "",
        value: total,
        result: `${total.toLocaleString("en")} tokens (o200k_base)`,
        limit: TOKEN_LIMIT,
        target: `≤ ${TOKEN_LIMIT.toLocaleString("en")} tokens`,
      }),
    ],
    data: { prompt, tools, total },
  };
}
