// Ours, for the engine benchmarks: the newest chapter's parsePatch and applyHunks, straight from
// its TypeScript source (the chapters run with tsx, and so does the bench), so the bench always
// measures the code as it is now.
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { listChapters, type Chapter } from "../scripts/lib/chapters.ts";

// The two functions' shapes, declared here: bench/ cannot import one chapter's types for all.
interface ParseModule {
  parsePatch(text: string): { operations: Array<{ kind: string; hunks?: unknown[] }> };
}
interface ApplyModule {
  applyHunks(fileText: string, hunks: unknown[], path: string): { text: string };
}

export interface Engine {
  chapter: Chapter;
  /** Parse + apply, as apply_patch does for one Update: the patch text in, the new file text out. */
  parseAndApply(fileText: string, patchText: string): string;
}

export async function loadEngine(): Promise<Engine> {
  const chapter = listChapters()
    .filter((c) => c.number >= 10) // chapter 10 finds hunks by their context
    .at(-1);
  if (chapter === undefined) throw new Error("pnpm bench: no chapter with the patch engine yet");
  const load = (file: string): Promise<unknown> =>
    import(pathToFileURL(join(chapter.dir, "src", "patch", file)).href);
  const { parsePatch } = (await load("parse-patch.ts")) as ParseModule;
  const { applyHunks } = (await load("apply-hunks.ts")) as ApplyModule;
  return {
    chapter,
    parseAndApply(fileText, patchText) {
      const [operation] = parsePatch(patchText).operations;
      if (operation?.hunks === undefined) throw new Error("bench: the patch has no Update hunks");
      return applyHunks(fileText, operation.hunks, "big.ts").text;
    },
  };
}
