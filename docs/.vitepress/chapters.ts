// The chapter list for the site: the root scripts' list (chapters/*/chapter.json), so a new chapter
// needs no config edit: its page appears in the sidebar as soon as docs/chapters/<slug>.md exists.
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { listChapters } from "../../scripts/lib/chapters.ts";

export { ROOT } from "../../scripts/lib/chapters.ts";
export const DOCS_DIR = resolve(fileURLToPath(import.meta.url), "../..");

export interface SiteChapter {
  number: number;
  slug: string; // e.g. "13-multi-file-patches"
  /** The book's part, e.g. "Tools": the sidebar groups chapters under their parts. */
  part: string;
  title: string;
  /** Whether docs/chapters/<slug>.md exists; chapters still being written have no page yet. */
  hasPage: boolean;
}

export function listSiteChapters(): SiteChapter[] {
  return listChapters().map(({ number, slug, part, title }) => ({
    number,
    slug,
    part,
    title,
    hasPage: existsSync(join(DOCS_DIR, "chapters", `${slug}.md`)),
  }));
}
