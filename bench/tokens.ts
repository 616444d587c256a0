// Tokens: what the first request of a run carries before the task's first word, the system prompt
// plus the definitions of every tool the agent offers, counted by the agent itself: the newest
// chapter's `main(["--print-prompt", ...])`, which builds the prompt and the tool list with the same
// functions a run does (buildSystemPrompt, agentTools with run_command) and prices them with the
// token counter the context budget uses. So this row cannot drift from what the model is sent.
//
// The workspace is an empty folder (no AGENTS.md, no skills, not a git repository) and HOME an
// empty folder too, so no skill of the person running the bench adds a load_skill tool.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { listChapters } from "../scripts/lib/chapters.ts";
import { scratchDir, type BenchContext, type SectionResult } from "./context.ts";
import { row } from "./report.ts";

/** Set by issue 11: what every model call may pay for the harness's own text. */
export const TOKEN_LIMIT = 1_500;

interface MainModule {
  main(argv: string[]): Promise<number>;
}

export interface PromptPrice {
  prompt: number;
  tools: number;
  total: number;
  /** Each tool and its tokens, as --print-prompt lists them. */
  each: Record<string, number>;
}

export async function measureTokens(context: BenchContext): Promise<SectionResult> {
  const workspace = scratchDir(context, "project");
  const home = scratchDir(context, "empty-home");
  const price = parsePrice(await printPrompt(workspace, home));
  const names = Object.keys(price.each).join(", ");
  return {
    rows: [
      row({
        section: "Tokens",
        measure: "the first request: system prompt + every tool's schema (--print-prompt)",
        label: "Prompt + tool schema tokens",
        ours: `system prompt ${price.prompt} + ${Object.keys(price.each).length} tools ${price.tools} (${names})`,
        reference: "",
        value: price.total,
        result: `${price.total.toLocaleString("en")} tokens (o200k_base)`,
        limit: TOKEN_LIMIT,
        target: `≤ ${TOKEN_LIMIT.toLocaleString("en")} tokens`,
      }),
    ],
    data: { ...price },
  };
}

/** The newest chapter's `--print-prompt --repo WORKSPACE`, run in this process; its output. */
async function printPrompt(workspace: string, home: string): Promise<string> {
  const chapter = listChapters()
    .filter((c) => c.number >= 17) // chapter 17 adds --print-prompt
    .at(-1);
  if (chapter === undefined) throw new Error("pnpm bench: no chapter has --print-prompt yet");
  // Importing main.ts runs nothing: it starts only when it is the process's entry point.
  const { main } = (await import(
    pathToFileURL(join(chapter.dir, "src", "main.ts")).href
  )) as MainModule;
  mkdirSync(home, { recursive: true });
  const saved = { home: process.env.HOME, write: process.stdout.write };
  let output = "";
  process.env.HOME = home;
  process.stdout.write = ((chunk: string | Uint8Array) => {
    output += chunk.toString();
    return true;
  }) as typeof process.stdout.write;
  let code: number;
  try {
    code = await main(["--print-prompt", "--repo", workspace]);
  } finally {
    process.stdout.write = saved.write;
    if (saved.home === undefined) delete process.env.HOME;
    else process.env.HOME = saved.home;
  }
  if (code !== 0) throw new Error(`--print-prompt exited ${code}:\n${output}`);
  return output;
}

/** The three count lines --print-prompt ends with. */
export function parsePrice(output: string): PromptPrice {
  const prompt = /^-- system prompt: (\d+) tokens/m.exec(output);
  const tools = /^-- tools: (\d+) tokens \((.*)\) --$/m.exec(output);
  const total = /^-- (\d+) tokens in all/m.exec(output);
  if (prompt === null || tools === null || total === null) {
    throw new Error(`--print-prompt printed no token counts:\n${output.slice(-500)}`);
  }
  const each = Object.fromEntries(
    tools[2]!.split(", ").map((entry) => {
      const [name, count] = entry.split(" ");
      return [name!, Number(count)];
    }),
  );
  const price = {
    prompt: Number(prompt[1]),
    tools: Number(tools[1]),
    total: Number(total[1]),
    each,
  };
  if (price.prompt + price.tools !== price.total) {
    throw new Error(`--print-prompt's counts do not add up:\n${output.slice(-500)}`);
  }
  return price;
}
