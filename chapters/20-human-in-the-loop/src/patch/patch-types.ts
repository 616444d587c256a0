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
  /** The hunk's original lines (anchors included), for remaining_patch. */
  patchText: string;
}

export type PatchOperation =
  | { kind: "add"; path: string; contents: string; patchText: string }
  | { kind: "delete"; path: string; patchText: string }
  | {
      kind: "update";
      path: string;
      moveTo?: string;
      hunks: Hunk[];
      /** Tolerated "Update File" with no ' '/'-'/'+'/'@@' lines: the whole new file text. */
      wholeFile?: string;
      patchText: string;
    };
// patchText: the operation's exact text from "*** X File:" through its last line, so a
// remaining_patch is "*** Begin Patch\n" + failed ops' patchText + "*** End Patch\n".

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
