// Rebuilds a chapter's src/ from its page alone, the way a reader types it in: the previous
// chapter's src/ (nothing, for the first), then every placed snippet of the page, in page order,
// put in place by the reader's rules (docs/.vitepress/snippets/reader.ts) from what the page shows.
// Nothing here reads the chapter's own src/ except to compare with at the end.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { placedPage, previousSlug } from "../../docs/.vitepress/placed-snippets.ts";
import { applySnippet } from "../../docs/.vitepress/snippets/reader.ts";
import { filesUnder } from "../../docs/.vitepress/snippets/diff.ts";
import { ROOT } from "../../scripts/lib/chapters.ts";

export interface Rebuild {
  /** Snippets the reader could not place, with why: "src/x.ts (block 3, in `main`): …". */
  unplaced: string[];
  /** Files whose rebuilt text differs from the chapter's, with the first line that differs. */
  different: string[];
}

function srcFiles(slug: string | undefined): Map<string, string> {
  const files = new Map<string, string>();
  if (slug === undefined) return files;
  const dir = join(ROOT, "chapters", slug, "src");
  for (const file of filesUnder(dir))
    files.set(`src/${file}`, readFileSync(join(dir, file), "utf8"));
  return files;
}

function firstDifference(got: string, want: string): string {
  const a = got.split("\n");
  const b = want.split("\n");
  const i = a.findIndex((line, n) => line !== b[n]);
  const at = i === -1 ? Math.min(a.length, b.length) : i;
  return `line ${at + 1}: rebuilt ${JSON.stringify(a[at] ?? "(end of file)")}, chapter has ${JSON.stringify(b[at] ?? "(end of file)")}`;
}

export function rebuildChapter(slug: string): Rebuild {
  const markdown = readFileSync(join(ROOT, "docs", "chapters", `${slug}.md`), "utf8");
  const files = srcFiles(previousSlug(slug));
  const unplaced: string[] = [];
  placedPage(slug, markdown).forEach((snippet, i) => {
    const why = applySnippet(files, snippet);
    if (why !== undefined) {
      unplaced.push(`${snippet.path} (snippet ${i + 1} on the page, ${snippet.caption}): ${why}`);
    }
  });
  const want = srcFiles(slug);
  const different: string[] = [];
  for (const path of new Set([...files.keys(), ...want.keys()])) {
    const got = files.get(path);
    const real = want.get(path);
    if (got === real) continue;
    if (got === undefined) different.push(`${path}: the chapter has it, the page never creates it`);
    else if (real === undefined)
      different.push(`${path}: the page leaves it, the chapter has no such file`);
    else
      different.push(
        `${path}: ${firstDifference(got, real)} (a line no snippet shows? pnpm exec tsx scripts/page-check.ts ${slug.slice(0, 2)})`,
      );
  }
  return { unplaced, different };
}
