// Search: our search_text and list_files, in this process and warm (as the agent calls them),
// against ripgrep as a process (`rg -n` and `rg --files`), on a generated tree of 20,000 files
// (--quick: 300). ripgrep searches with a thread per core, so its CPU time is the sum over them;
// our tools read files through libuv's thread pool, which process.cpuUsage() counts as well.
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { listChapters } from "../scripts/lib/chapters.ts";
import { scratchDir, type BenchContext, type SectionResult } from "./context.ts";
import {
  hasProgram,
  race,
  timeInProcess,
  timeProcess,
  type Contender,
  type Stats,
} from "./measure.ts";
import { ratio, ratioText, row, timing, type Row } from "./report.ts";
import { NEEDLE, searchTree } from "./search-tree.ts";

/** The search target: at most three times ripgrep's CPU. */
export const SEARCH_LIMIT = 3;

interface Tool {
  execute(
    args: Record<string, unknown>,
    context: { cwd: string; signal: AbortSignal },
  ): Promise<{ ok: boolean; content: string }>;
}

async function loadTools(): Promise<{ searchText: Tool; listFiles: Tool }> {
  const chapter = listChapters()
    .filter((c) => c.number >= 8) // chapter 08 adds search_text (and rebuilds list_files)
    .at(-1);
  if (chapter === undefined) throw new Error("pnpm bench: no chapter with search_text yet");
  const load = (file: string): Promise<unknown> =>
    import(pathToFileURL(join(chapter.dir, "src", "tools", file)).href);
  const { searchTextTool } = (await load("search-text.ts")) as { searchTextTool: Tool };
  const { listFilesTool } = (await load("list-files.ts")) as { listFilesTool: Tool };
  return { searchText: searchTextTool, listFiles: listFilesTool };
}

export async function measureSearch(context: BenchContext): Promise<SectionResult> {
  const tree = searchTree(context.quick ? 300 : 20_000);
  const { searchText, listFiles } = await loadTools();
  const toolContext = { cwd: tree.root, signal: new AbortController().signal };
  const out = scratchDir(context, "search");
  const rg = (args: string[]) => () =>
    timeProcess({ command: ["rg", ...args], cwd: tree.root, stdoutFile: join(out, "rg.txt") });
  const tool = (t: Tool, args: Record<string, unknown>) => () =>
    timeInProcess(async () => {
      const result = await t.execute(args, toolContext);
      if (!result.ok) throw new Error(result.content);
    });

  // Ours must find what is there (every needle; every file counted), or the race means nothing.
  const found = (await searchText.execute({ query: NEEDLE }, toolContext)).content;
  const hits = found.split("\n").filter((line) => line.includes(`"${NEEDLE}"`)).length;
  if (hits !== tree.needles)
    throw new Error(`search_text found ${hits} of ${tree.needles}: ${found}`);
  const listed = (await listFiles.execute({}, toolContext)).content;
  if (!listed.includes(String(tree.files))) throw new Error(`list_files: ${listed.slice(0, 200)}`);

  const haveRg = hasProgram("rg");
  const options = {
    warmup: 1,
    minRounds: context.quick ? 1 : 5,
    maxRounds: context.quick ? 1 : 11,
    budgetMs: 15_000,
  };
  const pair = async (ours: Contender, reference: Contender): Promise<Map<string, Stats>> =>
    race(haveRg ? [ours, reference] : [ours], options);
  const search = await pair(
    { name: "ours", run: tool(searchText, { query: NEEDLE }) },
    { name: "rg", run: rg(["-n", NEEDLE, "."]) }, // "." or ripgrep searches a piped stdin
  );
  const list = await pair(
    { name: "ours", run: tool(listFiles, {}) },
    { name: "rg", run: rg(["--files", "."]) },
  );
  const files = `${tree.files.toLocaleString("en")} files`;
  const versus = (
    short: string,
    measure: string,
    stats: Map<string, Stats>,
    label: string,
  ): Row => {
    const ours = stats.get("ours")!;
    const reference = stats.get("rg");
    const r = reference && ratio(ours, reference);
    return row({
      section: "Search",
      measure,
      label: short,
      ours: timing(ours),
      reference: reference ? `${label}: ${timing(reference)}` : `${label}: not installed`,
      value: r?.cpu,
      result: r ? ratioText(r) : "not installed",
      limit: SEARCH_LIMIT,
      target: `≤ ${SEARCH_LIMIT}× CPU`,
    });
  };
  return {
    rows: [
      versus(
        "search_text vs rg -n",
        `search_text (in process) against rg -n, ${files}, ${tree.needles} matches`,
        search,
        "rg -n",
      ),
      versus(
        "list_files vs rg --files",
        `list_files (in process) against rg --files, ${files}`,
        list,
        "rg --files",
      ),
    ],
    data: {
      files: tree.files,
      matches: tree.needles,
      search: Object.fromEntries(search),
      list: Object.fromEntries(list),
    },
  };
}
