/**
 * The indentation structure of a file, used in two places: an `@@ anchor` that opens an
 * indented block (a class, a function) narrows the search to that block, and an ambiguity
 * hint names the lines that enclose each candidate.
 *
 * Indentation is the number of leading whitespace characters; blank lines are skipped
 * because they carry no indentation of their own.
 */
function indentation(line: string): number {
  return line.length - line.trimStart().length;
}

function isBlank(line: string): boolean {
  return line.trim() === "";
}

/**
 * Where the block opened by the line at `index` ends (exclusive), or `lines.length` when the
 * line opens no block. The closing line (a `}` at the opener's indentation, or the next
 * sibling in Python) is included: hunks often use it as context.
 */
export function blockEnd(lines: readonly string[], index: number): number {
  const openerIndent = indentation(lines[index]);
  let next = index + 1;
  while (next < lines.length && isBlank(lines[next])) next++;
  if (next >= lines.length || indentation(lines[next]) <= openerIndent) return lines.length;
  for (let line = next; line < lines.length; line++) {
    const text = lines[line];
    if (!isBlank(text) && indentation(text) <= openerIndent) return line + 1;
  }
  return lines.length;
}

/**
 * The nearest line above `index` with less indentation than the first non-blank line from
 * `index` on: the `render() {` around a method body, the `class B {` around `render() {`.
 */
export function enclosingLine(lines: readonly string[], index: number): number | undefined {
  let first = index;
  while (first < lines.length && isBlank(lines[first])) first++;
  const indent = indentation(lines[first]);
  for (let line = index - 1; line >= 0; line--) {
    const text = lines[line];
    if (!isBlank(text) && indentation(text) < indent) return line;
  }
  return undefined;
}
