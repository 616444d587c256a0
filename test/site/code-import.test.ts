// The site's "import a declaration by name" (docs/.vitepress/code-import.ts): what a page shows
// must be exactly the declaration, with its comment, and a missing name must be noticed.
import { describe, expect, test } from "vitest";
import { extractDeclaration, extractMember } from "../../docs/.vitepress/code-import.ts";

const SOURCE = [
  'import { x } from "./x.ts";',
  "",
  "/** Adds. */",
  "export function add(a: number, b: number): number {",
  "  return a + b; // {",
  "}",
  "",
  "export type Level =",
  '  | "low"',
  '  | "high";',
  "",
  "export class Box {",
  "  private count = 0;",
  "",
  "  // Counts one more.",
  "  async bump(by = 1): Promise<void> {",
  "    this.count += by;",
  "  }",
  "",
  "  get size(): number {",
  "    return this.count;",
  "  }",
  "}",
  "",
].join("\n");

describe("code imports by name", () => {
  test("a function with its doc comment, unfooled by a brace in a comment", () => {
    expect(extractDeclaration(SOURCE, "add")).toBe(
      "/** Adds. */\nexport function add(a: number, b: number): number {\n  return a + b; // {\n}",
    );
  });

  test("a multi-line type ends at its semicolon", () => {
    expect(extractDeclaration(SOURCE, "Level")).toBe('export type Level =\n  | "low"\n  | "high";');
  });

  test("a class member, with its comment, without the class's indentation", () => {
    expect(extractMember(SOURCE, "Box", "bump")).toBe(
      "// Counts one more.\nasync bump(by = 1): Promise<void> {\n  this.count += by;\n}",
    );
    expect(extractMember(SOURCE, "Box", "size")).toBe(
      "get size(): number {\n  return this.count;\n}",
    );
  });

  test("an unknown name is undefined, so the build can fail on it", () => {
    expect(extractDeclaration(SOURCE, "subtract")).toBeUndefined();
    expect(extractMember(SOURCE, "Box", "shrink")).toBeUndefined();
    expect(extractMember(SOURCE, "Crate", "bump")).toBeUndefined();
  });
});
