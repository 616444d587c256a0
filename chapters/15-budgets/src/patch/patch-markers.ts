/**
 * Recognising the patch's marker lines. Models pad markers with spaces and drop the
 * leading "*** " of file headers; both are accepted, with a repair sentence, because the
 * intent is unambiguous.
 */
export const BEGIN_PATCH = "*** Begin Patch";
export const END_PATCH = "*** End Patch";
export const END_OF_FILE = "*** End of File";

export type HeaderKind = "add" | "delete" | "update" | "move";

export interface Header {
  kind: HeaderKind;
  path: string;
  /** Set when the header was written in a tolerated, non-canonical form. */
  repair?: string;
}

const LABELS: ReadonlyArray<[HeaderKind, string]> = [
  ["add", "Add File:"],
  ["delete", "Delete File:"],
  ["update", "Update File:"],
  ["move", "Move to:"],
];

/** The canonical spelling of a header, as it appears in messages and hints. */
export function headerText(kind: HeaderKind, path: string): string {
  const label = LABELS.find(([k]) => k === kind)?.[1] ?? "";
  return `*** ${label} ${path}`;
}

export function readHeader(line: string, lineNumber: number): Header | undefined {
  const trimmed = line.trim();
  const starred = trimmed.startsWith("*** ");
  const rest = starred ? trimmed.slice(4) : trimmed;
  for (const [kind, label] of LABELS) {
    if (!rest.startsWith(label)) continue;
    const path = rest.slice(label.length).trim();
    const canonical = headerText(kind, path);
    if (!starred) {
      const repair = `Line ${lineNumber}: '${trimmed}' lacked the leading '*** '; it was read as '${canonical}'.`;
      return { kind, path, repair };
    }
    if (line !== trimmed) {
      return { kind, path, repair: `Line ${lineNumber}: spaces around '${trimmed}' were ignored.` };
    }
    return { kind, path };
  }
  return undefined;
}

/** A marker line such as "*** End Patch", allowing spaces around it. */
export function isMarker(line: string, marker: string): boolean {
  return line.trim() === marker;
}
