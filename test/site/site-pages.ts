// The pages the site should have, derived from the Markdown sources in docs/ (README.md is for
// contributors and excluded from the site, like in docs/.vitepress/config.ts).
import { readdirSync, statSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = resolve(fileURLToPath(import.meta.url), "../../..");
export const DOCS_DIR = join(ROOT, "docs");

const SKIPPED = new Set(["node_modules", ".vitepress", "generated", "outputs", "public"]);

export interface SitePage {
  /** docs-relative Markdown path, e.g. "chapters/01-model-client.md" */
  source: string;
  /** the URL path of the built page, e.g. "/chapters/01-model-client.html" */
  urlPath: string;
}

export function markdownSources(dir = DOCS_DIR): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const full = join(dir, name);
      if (statSync(full).isDirectory()) return SKIPPED.has(name) ? [] : markdownSources(full);
      return name.endsWith(".md") ? [relative(DOCS_DIR, full).split(sep).join("/")] : [];
    });
}

export function sitePages(): SitePage[] {
  return (
    markdownSources()
      // A dynamic route (docs/code/[chapter].md: one page per chapter's files) is no page itself;
      // browser.test.ts visits the pages it makes on its own.
      .filter((source) => source !== "README.md" && !source.includes("["))
      .map((source) => ({
        source,
        urlPath: source === "index.md" ? "/" : `/${source.replace(/\.md$/, ".html")}`,
      }))
  );
}
