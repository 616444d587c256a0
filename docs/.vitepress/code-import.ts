// Lets a page import one declaration of a chapter's source by name, without region comments:
//
//   <<< @/../chapters/01-model-client/src/retry.ts#withRetry{ts}
//
// VitePress's own snippet import handles `// #region name` comments, and silently shows the WHOLE
// file when the region is missing. Here, when the file has no such region, "#name" selects the
// exported (or top-level) declaration called `name`, with the comment block right above it. When
// neither exists the build fails, so a renamed function can never leave a page showing stale code.
import { readFileSync } from "node:fs";
import type { MarkdownRenderer } from "vitepress";

type FenceRule = NonNullable<MarkdownRenderer["renderer"]["rules"]["fence"]>;
interface SnippetToken {
  src?: [string, string | undefined];
  content: string;
}

const DECLARATION =
  /^(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:async\s+)?(?:function\*?|class|interface|type|const|let|enum|abstract\s+class)\s+([A-Za-z_$][\w$]*)/;

function hasRegion(lines: string[], name: string): boolean {
  return lines.some((line) => new RegExp(`^\\s*//\\s*#?region ${name}\\s*$`).test(line));
}

/** The declaration's lines, from the comment block right above it to the line that closes it. */
export function extractDeclaration(source: string, name: string): string | undefined {
  const lines = source.replace(/\r\n/g, "\n").split("\n");
  const start = lines.findIndex((line) => DECLARATION.exec(line)?.[1] === name);
  if (start === -1) return undefined;
  let first = start;
  while (first > 0 && /^\s*(\/\/|\/\*\*?|\*)/.test(lines[first - 1]!)) first--;
  // Prettier-formatted code: the declaration ends on the first line where brackets balance and
  // the statement is closed (`;` or a closing bracket). Strings and comments are blanked first.
  let depth = 0;
  let end = start;
  for (; end < lines.length; end++) {
    const code = lines[end]!.replace(/(["'`])(?:\\.|(?!\1).)*\1/g, '""').replace(/\/\/.*$/, "");
    for (const ch of code) {
      if ("{([".includes(ch)) depth++;
      else if ("})]".includes(ch)) depth--;
    }
    if (depth <= 0 && /[;})\]]\s*$/.test(code)) break;
  }
  return lines.slice(first, end + 1).join("\n");
}

export function codeImportPlugin(md: MarkdownRenderer): void {
  const snippetFence = md.renderer.rules.fence as FenceRule;
  md.renderer.rules.fence = (tokens, idx, options, env, self) => {
    const token = tokens[idx] as unknown as SnippetToken;
    const [src, name] = token.src ?? [];
    if (src !== undefined && name) {
      const source = readFileSync(src, "utf8");
      if (!hasRegion(source.split("\n"), name)) {
        const declaration = extractDeclaration(source, name);
        if (declaration === undefined) {
          throw new Error(
            `Code import: ${src} has neither a "// #region ${name}" nor a declaration named ${name}. ` +
              `Update the <<< import on the page that uses it.`,
          );
        }
        token.src = undefined;
        token.content = declaration;
      }
    }
    return snippetFence(tokens, idx, options, env, self);
  };
}
