// Each chapter's src/ on the site (/code/NN-slug): a file tree, and each file highlighted as the
// pages highlight code, with the lines the chapter changed marked (its diff against the chapter
// before, as placed-snippets.ts computes it). A reader who is lost in a page can look at the whole
// file.
//
// The tree is page data (docs/code/[chapter].paths.ts); a file's highlighted HTML is a fragment,
// /code-files/<id>.html, fetched when the reader opens the file, so a chapter of 100 files does
// not put megabytes of markup into one page. A fragment's id is the hash of the file's bytes and
// its marks: a file unchanged across ten chapters is highlighted once. `docs:build` writes the
// fragments into the built site; `docs:dev` renders them when asked.
import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { extname, join, sep } from "node:path";
import { createMarkdownRenderer, type MarkdownRenderer, type SiteConfig } from "vitepress";
import { fenceFor } from "./exercise-solutions.ts";
import { changesOf } from "./placed-snippets.ts";
import { ROOT, listSiteChapters } from "./chapters.ts";

export const FRAGMENTS_PATH = "code-files";

export interface CodeFile {
  /** Path inside the chapter, e.g. "src/main.ts". */
  path: string;
  status: "added" | "modified" | "same";
  /** How many of its lines the chapter added or changed. */
  changed: number;
  /** The fragment's name: /code-files/<fragment>.html. */
  fragment: string;
}

interface Source {
  text: string;
  language: string;
  marked: number[];
}

const LANGUAGES: Record<string, string> = {
  ".ts": "ts",
  ".mts": "ts",
  ".js": "js",
  ".mjs": "js",
  ".json": "json",
  ".md": "md",
  ".sh": "sh",
  ".yaml": "yaml",
  ".yml": "yaml",
};

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((name) => statSync(join(dir, name)).isFile())
    .map((name) => name.split(sep).join("/"))
    .sort();
}

const sources = new Map<string, Source>();
const chapterCache = new Map<string, CodeFile[]>();

/** The files of chapter `slug`'s src/, each with its fragment's id and its changed lines. */
export function chapterFiles(slug: string): CodeFile[] {
  const known = chapterCache.get(slug);
  if (known) return known;
  const changes = new Map(changesOf(slug).map((change) => [change.path, change]));
  const files = filesUnder(join(ROOT, "chapters", slug, "src")).map((name): CodeFile => {
    const path = `src/${name}`;
    const text = readFileSync(join(ROOT, "chapters", slug, path), "utf8");
    const change = changes.get(path);
    // Line numbers (1-based) in this chapter's file that its lesson added or changed.
    const marked = (change?.lines ?? [])
      .filter((line) => line.kind === "+" && line.newLine !== undefined)
      .map((line) => line.newLine!);
    const language = LANGUAGES[extname(name)] ?? "txt";
    const fragment = createHash("sha256")
      .update(language)
      .update("\0")
      .update(marked.join(","))
      .update("\0")
      .update(text)
      .digest("hex")
      .slice(0, 16);
    sources.set(fragment, { text, language, marked });
    const status = change === undefined ? "same" : change.status === "added" ? "added" : "modified";
    return { path, status, changed: marked.length, fragment };
  });
  chapterCache.set(slug, files);
  return files;
}

/** Adds "diff add" to the n-th (1-based) highlighted line for each n in `marked`. */
function markLines(html: string, marked: number[]): string {
  if (marked.length === 0) return html;
  const set = new Set(marked);
  let n = 0;
  return html
    .replace(/<span class="line">/g, () =>
      set.has(++n) ? '<span class="line diff add">' : '<span class="line">',
    )
    .replace('<pre class="', '<pre class="has-diff ');
}

export function renderFragment(md: MarkdownRenderer, source: Source): string {
  const body = source.text.replace(/\n$/, "");
  const ticks = fenceFor(body);
  const html = md.render(`${ticks}${source.language}:line-numbers\n${body}\n${ticks}\n`, {});
  return markLines(html, source.marked);
}

function allSources(): Map<string, Source> {
  for (const chapter of listSiteChapters()) chapterFiles(chapter.slug);
  return sources;
}

/** docs:build: every chapter's fragments into the built site. */
export async function writeCodeFragments(siteConfig: SiteConfig): Promise<number> {
  const md = await createMarkdownRenderer(
    siteConfig.srcDir,
    siteConfig.markdown,
    siteConfig.site.base,
    siteConfig.logger,
  );
  const dir = join(siteConfig.outDir, FRAGMENTS_PATH);
  mkdirSync(dir, { recursive: true });
  const all = allSources();
  for (const [fragment, source] of all) {
    writeFileSync(join(dir, `${fragment}.html`), renderFragment(md, source));
  }
  return all.size;
}

// Just the part of a Vite plugin this one uses: the root's vite is not the one VitePress runs.
type Handler = (request: IncomingMessage, response: ServerResponse, next: () => void) => void;
interface DevPlugin {
  name: string;
  apply: "serve";
  configureServer(server: { middlewares: { use(path: string, handler: Handler): void } }): void;
}

/** docs:dev: renders a fragment when the browser asks for it. */
export function codeFragmentsDevPlugin(srcDir: string): DevPlugin {
  return {
    name: "code-fragments-dev",
    apply: "serve",
    configureServer(server) {
      server.middlewares.use(`/${FRAGMENTS_PATH}/`, (request, response, next) => {
        const id = /^\/([0-9a-f]{16})\.html$/.exec(request.url ?? "")?.[1];
        const source = id === undefined ? undefined : allSources().get(id);
        if (source === undefined) return next();
        void createMarkdownRenderer(srcDir).then((md) => {
          response.setHeader("content-type", "text/html; charset=utf-8");
          response.end(renderFragment(md, source));
        });
      });
    },
  };
}
