export interface Hunk {
  /** The "@@ text" lines before this hunk, in order (empty if none or bare "@@"). */
  anchors: string[];
  /** Context (" ") and removed ("-") lines, without prefix, in order. */
  oldLines: string[];
  /** Context (" ") and added ("+") lines, without prefix, in order. */
  newLines: string[];
}

export type PatchOperation =
  | { kind: "add"; path: string; contents: string }
  | { kind: "delete"; path: string }
  | {
      kind: "update";
      path: string;
      hunks: Hunk[];
    };

export interface ParsedPatch {
  operations: PatchOperation[];
}

export interface HunkApplication {
  /** The file's new full text. */
  text: string;
}
