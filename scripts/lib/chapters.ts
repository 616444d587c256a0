// The chapter list and what belongs to each chapter snapshot, shared by the root scripts.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

// CHAPTERS_ROOT lets the drift tests run these scripts on a scratch repository.
export const ROOT =
  process.env.CHAPTERS_ROOT ?? resolve(fileURLToPath(import.meta.url), "../../..");
export const CHAPTERS_DIR = join(ROOT, "chapters");

/** Files every chapter has of its own: they never count as drift. */
const UNTRACKED = new Set(["package.json", "README.md", "chapter.json"]);
/** Folders that are never part of a chapter snapshot: installed packages, agent runs, builds. */
export const SKIPPED_DIRS = new Set(["node_modules", ".agent", "dist"]);

export interface Chapter {
  number: number;
  dir: string; // absolute
  slug: string; // e.g. "08-workspace-search"
  /** The book's part the chapter belongs to, e.g. "Tools"; consecutive chapters share a part. */
  part: string;
  title: string;
  /** Paths (relative to the chapter dir) this chapter adds, changes or deletes; "dir/" means everything under it. */
  lesson: string[];
}

export function listChapters(): Chapter[] {
  return readdirSync(CHAPTERS_DIR)
    .filter((slug) => /^\d\d-/.test(slug) && existsSync(join(CHAPTERS_DIR, slug, "chapter.json")))
    .sort()
    .map((slug) => {
      const dir = join(CHAPTERS_DIR, slug);
      const manifest = JSON.parse(readFileSync(join(dir, "chapter.json"), "utf8")) as {
        part?: string;
        title: string;
        lesson?: string[];
      };
      return {
        number: Number(slug.slice(0, 2)),
        dir,
        slug,
        part: manifest.part ?? manifest.title,
        title: manifest.title,
        lesson: manifest.lesson ?? [],
      };
    });
}

/** The newest chapter's copy of a file (e.g. "src/apply-patch-cli.ts"); undefined while none has it. */
export function newestChapterFile(path: string, chapters = listChapters()): string | undefined {
  return chapters
    .map((c) => join(c.dir, path))
    .filter((file) => existsSync(file))
    .at(-1);
}

/** A chapter is runnable once it has an entry point. */
export function isRunnable(chapter: Chapter): boolean {
  return existsSync(join(chapter.dir, "src", "main.ts"));
}

export function chapterListText(chapters: Chapter[]): string {
  const width = Math.max(0, ...chapters.map((c) => c.slug.length));
  return chapters
    .map(
      (c) =>
        `  ${String(c.number).padStart(2)}  ${c.slug.padEnd(width)}  ${c.title}${isRunnable(c) ? "" : " (not written yet)"}`,
    )
    .join("\n");
}

/** Accepts "3", "03" or "08-workspace-search"; returns undefined when no chapter matches. */
export function findChapter(chapters: Chapter[], arg: string | undefined): Chapter | undefined {
  if (arg === undefined) return undefined;
  return chapters.find(
    (c) => c.slug === arg || (/^\d{1,2}$/.test(arg) && c.number === Number(arg)),
  );
}

export function isLessonPath(chapter: Chapter, path: string): boolean {
  return chapter.lesson.some((entry) =>
    entry.endsWith("/") ? path.startsWith(entry) : path === entry,
  );
}

/** Every snapshot file of a chapter, as posix paths relative to its dir. */
export function snapshotFiles(chapter: Chapter): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      if (SKIPPED_DIRS.has(name)) continue;
      const full = join(dir, name);
      const rel = relative(chapter.dir, full).split(sep).join("/");
      if (statSync(full).isDirectory()) walk(full);
      else if (!UNTRACKED.has(rel)) files.push(rel);
    }
  };
  walk(chapter.dir);
  return files.sort();
}

export function readIfExists(path: string): Buffer | undefined {
  return existsSync(path) ? readFileSync(path) : undefined;
}

export function sameBytes(a: Buffer | undefined, b: Buffer | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.equals(b);
}
