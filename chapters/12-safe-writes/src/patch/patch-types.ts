/** How loosely a hunk's lines had to be compared before they matched the file. */
export type MatchLevel = "exact" | "trailing_whitespace" | "surrounding_whitespace" | "punctuation";

export interface Hunk {
  /** The "@@ text" lines before this hunk, in order (empty if none or bare "@@"). */
  anchors: string[];
  /** Context (" ") and removed ("-") lines, without prefix, in order. */
  oldLines: string[];
  /** Context (" ") and added ("+") lines, without prefix, in order. */
  newLines: string[];
  /** "*** End of File" followed this hunk: it must match at the end of the file. */
  endOfFile: boolean;
}

export type PatchOperation =
  | { kind: "add"; path: string; contents: string }
  | { kind: "delete"; path: string }
  | {
      kind: "update";
      path: string;
      hunks: Hunk[];
      /** Tolerated "Update File" with no ' '/'-'/'+'/'@@' lines: the whole new file text. */
      wholeFile?: string;
    };

export interface ParsedPatch {
  operations: PatchOperation[];
  /** One sentence per tolerated mistake. */
  repairs: string[];
}

export interface HunkApplication {
  /** The file's new full text. */
  text: string;
  /** The ladder level each hunk matched at, in hunk order. */
  matched: MatchLevel[];
  /** e.g. "anchor '@@ render() {' matched 2 lines and was ignored". */
  notes: string[];
}
