// The names a caption places code by: a file's top-level declarations, and the members of its
// top-level classes. A reader finds them by name in the file they have, as a reader of Crafting
// Interpreters finds "after scanToken()".
import { namedRange, topLevelDeclarations } from "../code-import.ts";

export interface Landmark {
  /** As a caption says it: "main", "RunLedger.torn". */
  name: string;
  /**
   * 0-based first line (the comment block above the declaration included) and last line; a
   * declaration the reader has only begun (a class whose members are still to come, on a page
   * that shows it in pieces) runs to the end of the file and past it.
   */
  first: number;
  last: number;
}

/** `range`, with a declaration left open at the end of the file running on past it. */
function open(lines: readonly string[], range: [number, number], start: number): [number, number] {
  const indent = (line: string) => /^\s*/.exec(line)![0].length;
  const last = lines[range[1]]!;
  const ends =
    indent(last) === indent(lines[start]!) && (/^\s*[}\])]/.test(last) || /;\s*$/.test(last));
  return ends || range[1] < lines.length - 1 ? range : [range[0], Number.MAX_SAFE_INTEGER];
}

/** A member line of a Prettier-formatted class: two spaces in, a name, then `(`, `<`, `:`, `=`, `?` or `;`. */
const MEMBER =
  /^ {2}(?:(?:public|private|protected|static|readonly|async|override|declare|abstract|get|set)\s+)*(?:#|\*)?([A-Za-z_$][\w$]*)\s*[(<:=?;!]/;

/** The members of the class whose declaration starts on line `start`, up to its closing `}`. */
function members(lines: readonly string[], className: string, start: number): Landmark[] {
  const end = lines.findIndex((line, i) => i > start && /^}/.test(line));
  const found: Landmark[] = [];
  for (let i = start + 1; i < (end === -1 ? lines.length : end); i++) {
    const member = MEMBER.exec(lines[i]!)?.[1];
    if (member === undefined || found.some((landmark) => landmark.name.endsWith(`.${member}`))) {
      continue;
    }
    const range = namedRange(lines, `${className}-${member}`);
    if (range === undefined || range[1] < i) continue;
    const [first, last] = open(lines, range, i);
    found.push({ name: `${className}.${member}`, first, last });
  }
  return found;
}

/**
 * Every landmark of a file, in file order; a name that comes twice (an overload) keeps its first,
 * the one a reader finds by name.
 */
export function landmarks(lines: readonly string[]): Landmark[] {
  const found: Landmark[] = [];
  for (const declaration of topLevelDeclarations(lines)) {
    if (found.some((landmark) => landmark.name === declaration.name)) continue;
    const range = namedRange(lines, declaration.name);
    if (range === undefined || range[1] < declaration.line) continue;
    const [first, last] = open(lines, range, declaration.line);
    found.push({ name: declaration.name, first, last });
    if (/^(?:export\s+)?(?:default\s+)?(?:abstract\s+)?class\s/.test(lines[declaration.line]!)) {
      found.push(...members(lines, declaration.name, declaration.line));
    }
  }
  return found;
}

/** Where the landmark a caption names starts in `lines`, as a reader finds it; -1 when absent. */
export function landmarkStart(lines: readonly string[], name: string): number {
  return landmarks(lines).find((landmark) => landmark.name === name)?.first ?? -1;
}
