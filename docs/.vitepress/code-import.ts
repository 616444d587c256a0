// Lets a page import one declaration of a chapter's source by name, without region comments:
//
//   <<< @/../chapters/04-retries/src/model/retry.ts#withRetry{ts}
//   <<< @/../chapters/16-notes/src/ledger/run-ledger.ts#RunLedger-lastKnownHash{ts}
//
// VitePress's own snippet import handles `// #region name` comments, and silently shows the WHOLE
// file when the region is missing. Here, when the file has no such region, "#name" selects the
// exported (or top-level) declaration called `name`, with the comment block right above it, and
// "#Class-member" one method, getter or field of a class. When
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

/** The 0-based [first, last] lines of the statement at `start`, with the comment block right above it. */
function statementRange(lines: readonly string[], start: number): [number, number] {
  let first = start;
  while (first > 0 && /^\s*(\/\/|\/\*\*?|\*)/.test(lines[first - 1]!)) first--;
  // Prettier-formatted code: the statement ends on the first line where brackets balance and it
  // is closed (`;` or a closing bracket). Strings and line comments are blanked first.
  let depth = 0;
  let end = start;
  const isTypeAlias = /^(?:export\s+)?(?:declare\s+)?type\s/.test(lines[start]!.trim());
  for (; end < lines.length; end++) {
    const code = lines[end]!.replace(/(["'`])(?:\\.|(?!\1).)*\1/g, '""').replace(/\/\/.*$/, "");
    for (const ch of code) {
      if ("{([".includes(ch)) depth++;
      else if ("})]".includes(ch)) depth--;
    }
    // A type alias ends at its `;` only: a union's members end in `}` at depth 0.
    const closes = isTypeAlias ? /;\s*$/ : /[;})\]]\s*$/;
    if (depth <= 0 && closes.test(code)) break;
  }
  return [first, Math.min(end, lines.length - 1)];
}

/** The lines [first, last] without the indentation of line `start`: members lose their class's. */
function dedent(lines: readonly string[], [first, last]: [number, number], start: number): string {
  const indent = /^\s*/.exec(lines[start]!)![0].length;
  return lines
    .slice(first, last + 1)
    .map((line) => line.slice(Math.min(indent, /^\s*/.exec(line)![0].length)))
    .join("\n");
}

function splitLines(source: string): string[] {
  return source.replace(/\r\n/g, "\n").split("\n");
}

/** The line where the top-level declaration called `name` starts, or -1. */
function declarationStart(lines: readonly string[], name: string): number {
  return lines.findIndex((line) => DECLARATION.exec(line)?.[1] === name);
}

/** The line where member `member` of the top-level class `className` starts, or -1. */
function memberStart(lines: readonly string[], className: string, member: string): number {
  const classStart = declarationStart(lines, className);
  if (classStart === -1) return -1;
  const classEnd = lines.findIndex((line, i) => i > classStart && /^}/.test(line));
  for (let i = classStart + 1; i < (classEnd === -1 ? lines.length : classEnd); i++) {
    if (MEMBER.exec(lines[i]!)?.[1] === member) return i;
  }
  return -1;
}

/** The top-level declaration called `name`, or undefined. */
export function extractDeclaration(source: string, name: string): string | undefined {
  const lines = splitLines(source);
  const start = declarationStart(lines, name);
  return start === -1 ? undefined : dedent(lines, statementRange(lines, start), start);
}

const MEMBER =
  /^\s+(?:(?:public|private|protected|static|readonly|async|override|get|set)\s+)*\*?([A-Za-z_$][\w$]*)\s*[(<:=?]/;

/** A member (method, getter, field) of the top-level class `className`, or undefined. */
export function extractMember(
  source: string,
  className: string,
  member: string,
): string | undefined {
  const lines = splitLines(source);
  const start = memberStart(lines, className, member);
  return start === -1 ? undefined : dedent(lines, statementRange(lines, start), start);
}

/**
 * The 0-based [first, last] lines of "#name" (a declaration) or "#Class-member" (a member of a
 * class, when no declaration has that name), comment block included; undefined when neither exists.
 */
export function namedRange(lines: readonly string[], name: string): [number, number] | undefined {
  const start = declarationStart(lines, name);
  if (start !== -1) return statementRange(lines, start);
  const [className, member, ...rest] = name.split("-");
  if (className === undefined || member === undefined || rest.length > 0) return undefined;
  const inClass = memberStart(lines, className, member);
  return inClass === -1 ? undefined : statementRange(lines, inClass);
}

/** The name of every top-level declaration, with the 0-based line it starts on. */
export function topLevelDeclarations(
  lines: readonly string[],
): Array<{ name: string; line: number }> {
  return lines.flatMap((line, i) => {
    const name = /^\S/.test(line) ? DECLARATION.exec(line)?.[1] : undefined;
    return name === undefined ? [] : [{ name, line: i }];
  });
}

/** "#name" is a declaration; "#Class-member" a member of a class, when no such declaration exists. */
function extractNamed(source: string, name: string): string | undefined {
  const declaration = extractDeclaration(source, name);
  if (declaration !== undefined) return declaration;
  const [className, member, ...rest] = name.split("-");
  if (className === undefined || member === undefined || rest.length > 0) return undefined;
  return extractMember(source, className, member);
}

export function codeImportPlugin(md: MarkdownRenderer): void {
  const snippetFence = md.renderer.rules.fence as FenceRule;
  md.renderer.rules.fence = (tokens, idx, options, env, self) => {
    const token = tokens[idx] as unknown as SnippetToken;
    const [src, name] = token.src ?? [];
    if (src !== undefined && name) {
      const source = readFileSync(src, "utf8");
      if (!hasRegion(source.split("\n"), name)) {
        const declaration = extractNamed(source, name);
        if (declaration === undefined) {
          throw new Error(
            `Code import: ${src} has neither a "// #region ${name}" nor a declaration (or Class-member) named ${name}. ` +
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
