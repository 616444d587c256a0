// The chapter list, read from chapters/*/chapter.json, so a new chapter needs no config edit:
// its page appears in the sidebar as soon as docs/chapters/<slug>.md exists.
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const DOCS_DIR = resolve(fileURLToPath(import.meta.url), "../..");
export const ROOT = resolve(DOCS_DIR, "..");
export const CHAPTERS_DIR = join(ROOT, "chapters");

export interface SiteChapter {
  number: number;
  slug: string; // e.g. "04-apply-patch"
  title: string;
  /** Whether docs/chapters/<slug>.md exists; chapters still being written have no page yet. */
  hasPage: boolean;
}

export function listSiteChapters(): SiteChapter[] {
  return readdirSync(CHAPTERS_DIR)
    .filter((slug) => /^\d\d-/.test(slug) && existsSync(join(CHAPTERS_DIR, slug, "chapter.json")))
    .sort()
    .map((slug) => {
      const manifest = JSON.parse(
        readFileSync(join(CHAPTERS_DIR, slug, "chapter.json"), "utf8"),
      ) as { title: string };
      return {
        number: Number(slug.slice(0, 2)),
        slug,
        title: manifest.title,
        hasPage: existsSync(join(DOCS_DIR, "chapters", `${slug}.md`)),
      };
    });
}
