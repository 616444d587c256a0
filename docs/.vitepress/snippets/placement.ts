// Where each placed snippet goes, worked out the way a reader will follow it. A page's blocks are
// applied in page order, so each block is shown against the code the reader has at that point:
// the previous chapter's file with the earlier blocks' lines already in. Each change gets unchanged
// lines around it (more when two lines do not place it uniquely by reader.ts's rules), and its
// caption names the declaration it goes in or after: never a line number.
import type { ChangeBlock } from "./blocks.ts";
import { landmarks, type Landmark } from "./declarations.ts";
import type { DiffLine, FileChange } from "./diff.ts";
import { applyAt, hasChanges, locate, type Hunk, type PlacedSnippet, type Row } from "./reader.ts";
import { select } from "./selectors.ts";

/** Unchanged lines shown on each side of a change, at least (blank lines not counted). */
export const CONTEXT = 2;

export interface PlacedBlock extends PlacedSnippet {
  block: ChangeBlock;
  /** For each hunk after the first, how many unchanged lines lie between it and the one before. */
  folded: number[];
  /** Which of the page's blocks it comes from: a block's imports are a snippet of their own. */
  index?: number;
  /** The block changes nothing, though it selects changed lines: blocks before it showed them. */
  repeats?: true;
}

export interface Pick {
  block: ChangeBlock;
  change: FileChange;
}

const isBlank = (line: DiffLine | Row) => line.text.trim() === "";

/**
 * Which block first shows each changed line. A blank added or removed line goes with the changed
 * line right after it, else the one right before it, else the first block that selects it (a
 * blank line changed on its own: the nearest changed line), so whole declarations arrive with
 * the blank line between them.
 */
function owners(picks: Pick[]): Map<DiffLine, number> {
  const owner = new Map<DiffLine, number>();
  const selections = picks.map((pick) => select(pick.change, pick.block.selectors));
  // A block that only removes (a declaration the lesson deletes, by its name) shows that removal,
  // even when a block before it has the removed lines around what it adds: those show them as
  // lines still there.
  const removesOnly = selections.map((lines) => lines.every((line) => line.kind !== "+"));
  for (const first of [true, false]) {
    selections.forEach((lines, k) => {
      if (first && !removesOnly[k]) return;
      for (const line of lines) {
        if (line.kind !== " " && !isBlank(line) && !owner.has(line)) owner.set(line, k);
      }
    });
  }
  const firstSelecting = (line: DiffLine) => {
    const k = selections.findIndex((lines) => lines.includes(line));
    return k === -1 ? undefined : k;
  };
  for (const change of new Set(picks.map((pick) => pick.change))) {
    const all = change.lines;
    const changedBlank = (i: number) => all[i]!.kind !== " " && isBlank(all[i]!);
    const ownerAt = (i: number) =>
      i >= 0 && i < all.length && all[i]!.kind !== " " ? owner.get(all[i]!) : undefined;
    all.forEach((line, i) => {
      if (!changedBlank(i)) return;
      let next = i + 1;
      while (next < all.length && changedBlank(next)) next++;
      let previous = i - 1;
      while (previous >= 0 && changedBlank(previous)) previous--;
      let k = ownerAt(next) ?? ownerAt(previous) ?? firstSelecting(line);
      // A blank line changed on its own, between unchanged lines, goes with the nearest block.
      const alone = [next, previous].every((j) => j < 0 || j >= all.length || all[j]!.kind === " ");
      for (let d = 1; alone && k === undefined && d < all.length; d++) {
        k = ownerAt(i + d) ?? ownerAt(i - d);
      }
      if (k !== undefined) owner.set(line, k);
    });
  }
  return owner;
}

interface StateRow extends Row {
  /** A line the block's selectors picked, shown when it is near enough. */
  selected: boolean;
}

/** The block's rows: every line of the file before or after it, marked by what the block does. */
function blockRows(pick: Pick, k: number, owner: Map<DiffLine, number>): StateRow[] {
  const selected = new Set(select(pick.change, pick.block.selectors));
  const rows: StateRow[] = [];
  for (const line of pick.change.lines) {
    const by = owner.get(line);
    const before = line.kind === " " || (line.kind === "+") === (by !== undefined && by < k);
    const after = line.kind === " " || (line.kind === "+") === (by !== undefined && by <= k);
    if (!before && !after) continue;
    const kind = before && after ? " " : after ? "+" : "-";
    rows.push({ kind, text: line.text, selected: selected.has(line) });
  }
  return rows;
}

/** Which rows to show, given each change row's context radius. */
function visibleRows(rows: StateRow[], radius: number[]): boolean[] {
  const visible = rows.map((row) => row.kind !== " ");
  rows.forEach((row, i) => {
    if (row.kind === " ") return;
    for (const step of [-1, 1]) {
      // Outward until `radius` unchanged lines are in and the outermost is not blank.
      let taken = 0;
      for (let j = i + step; j >= 0 && j < rows.length; j += step) {
        visible[j] = true;
        if (rows[j]!.kind !== " ") continue;
        taken++;
        if (taken >= radius[i]! && !isBlank(rows[j]!)) break;
      }
    }
  });
  const runs = (test: (i: number) => boolean, then: (from: number, to: number) => void) => {
    for (let i = 0; i < rows.length;) {
      if (!test(i)) {
        i++;
        continue;
      }
      let j = i;
      while (j < rows.length && test(j)) j++;
      then(i, j);
      i = j;
    }
  };
  // A selected declaration's unchanged lines away from any change (its signature, its closing
  // brace) are shown when their run is short enough to read past.
  runs(
    (i) => !visible[i] && rows[i]!.selected,
    (from, to) => {
      if (to - from <= 3 * CONTEXT) visible.fill(true, from, to);
    },
  );
  // A gap of one line, or of blank lines only, is shown rather than folded.
  const first = visible.indexOf(true);
  const last = visible.lastIndexOf(true);
  runs(
    (i) => !visible[i] && i > first && i < last,
    (from, to) => {
      if (to - from <= 1 || rows.slice(from, to).every(isBlank)) visible.fill(true, from, to);
    },
  );
  // Blank unchanged lines at either end are noise.
  for (
    let i = 0;
    i < rows.length && (!visible[i] || (rows[i]!.kind === " " && isBlank(rows[i]!)));
    i++
  ) {
    visible[i] = false;
  }
  for (
    let i = rows.length - 1;
    i >= 0 && (!visible[i] || (rows[i]!.kind === " " && isBlank(rows[i]!)));
    i--
  ) {
    visible[i] = false;
  }
  return visible;
}

interface Cut {
  hunk: Row[];
  /** Row indexes of the hunk's first and last row. */
  from: number;
  to: number;
}

function cuts(rows: StateRow[], visible: boolean[]): Cut[] {
  const found: Cut[] = [];
  for (let i = 0; i < rows.length; i++) {
    if (!visible[i]) continue;
    let j = i;
    while (j + 1 < rows.length && visible[j + 1]) j++;
    found.push({
      hunk: rows.slice(i, j + 1).map(({ kind, text }) => ({ kind, text })),
      from: i,
      to: j,
    });
    i = j;
  }
  return found;
}

function code(name: string): string {
  return "`" + name + "`";
}

/** The landmark a change at line `at` of `lines` is placed by, and the caption's words for it. */
function placeOf(
  lines: readonly string[],
  at: number,
  kind: Row["kind"],
): { anchor?: Landmark; place: string } {
  const marks = landmarks(lines);
  const starts = (mark: Landmark) => (kind === "+" ? mark.first < at : mark.first <= at);
  const inside = (mark: Landmark) => starts(mark) && at <= mark.last;
  let anchor = marks.filter(starts).at(-1);
  if (anchor === undefined) return { place: "at the top of the file" };
  const dot = anchor.name.indexOf(".");
  if (dot !== -1) {
    const owner = marks.find((mark) => mark.name === anchor!.name.slice(0, dot))!;
    if (!inside(owner)) anchor = owner;
    else if (inside(anchor)) return { anchor, place: `in ${code(anchor.name)}` };
    else
      return { anchor, place: `in ${code(owner.name)}, after ${code(anchor.name.slice(dot + 1))}` };
  }
  return { anchor, place: `${inside(anchor) ? "in" : "after"} ${code(anchor.name)}` };
}

/** Names as a caption lists them: a member of a class that is new too goes with its class. */
function listed(names: string[], place: string): string {
  const classes = new Set(names.filter((name) => !name.includes(".")));
  const shown = names
    .filter((name) => !classes.has(name.split(".")[0]!) || !name.includes("."))
    .map((name) => {
      const dot = name.indexOf(".");
      return dot !== -1 && place.includes(code(name.slice(0, dot))) ? name.slice(dot + 1) : name;
    });
  const MAX = 4;
  const more = shown.length > MAX ? ` and ${shown.length - MAX + 1} more` : "";
  return (
    shown
      .slice(0, more ? MAX - 1 : MAX)
      .map(code)
      .join(", ") + more
  );
}

/** "new `x`", "removes `y`", "imports": what a hunk does, when a name says it. */
function whatOf(
  before: readonly string[],
  after: readonly string[],
  hunk: Row[],
  place: string,
): string {
  const names = (lines: readonly string[]) => landmarks(lines).map((mark) => mark.name);
  const had = new Set(names(before));
  const has = new Set(names(after));
  const added = [...has].filter((name) => !had.has(name));
  const removed = [...had].filter((name) => !has.has(name));
  const parts = [
    added.length ? `new ${listed(added, place)}` : "",
    removed.length ? `removes ${listed(removed, place)}` : "",
  ].filter(Boolean);
  if (parts.length === 0 && hunk.some((row) => row.kind !== " " && /^import\b/.test(row.text))) {
    parts.push("imports");
  }
  return parts.join(", ");
}

/** Where each run of changes after the first one of a hunk goes, in the caption's words. */
function laterPlaces(
  lines: readonly string[],
  hunk: Row[],
  startsAt: number,
  firstChange: number,
): string[] {
  const places: string[] = [];
  let at = startsAt;
  hunk.forEach((row, i) => {
    const runStarts = row.kind !== " " && (i === 0 || hunk[i - 1]!.kind === " ");
    if (runStarts && i > firstChange) places.push(placeOf(lines, at, row.kind).place);
    if (row.kind !== "+") at++;
  });
  return places;
}

interface Checked {
  hunks: Hunk[];
  /** Each hunk's caption; undefined for a hunk that changes nothing. */
  captions: Array<string | undefined>;
  /** Indexes (into the cuts) of the hunks the reader would put somewhere else. */
  misplaced: number[];
}

/** Places each hunk by the reader's rules, in order, and says which land in the wrong place. */
function check(before: string[], rows: StateRow[], found: Cut[]): Checked {
  let lines = before;
  let shift = 0;
  const result: Checked = { hunks: [], captions: [], misplaced: [] };
  found.forEach((cut, index) => {
    const startsAt = rows.slice(0, cut.from).filter((row) => row.kind !== "+").length + shift;
    const hunk: Hunk = { rows: cut.hunk };
    if (!hasChanges(hunk)) {
      result.hunks.push(hunk);
      result.captions.push(undefined);
      return;
    }
    const firstChange = cut.hunk.findIndex((row) => row.kind !== " ");
    const at = startsAt + cut.hunk.slice(0, firstChange).filter((row) => row.kind !== "+").length;
    const { anchor, place } = placeOf(lines, at, cut.hunk[firstChange]!.kind);
    if (anchor) hunk.anchor = anchor.name;
    if (locate(lines, hunk) !== startsAt) result.misplaced.push(index);
    const after = applyAt(lines, hunk, startsAt);
    const what = whatOf(lines, after, cut.hunk, place);
    // "removes `x`" says where by itself when `x` is what the caption would place it in.
    const self =
      anchor !== undefined && !landmarks(after).some((mark) => mark.name === anchor.name);
    const first = what ? (self ? what : `${what}, ${place}`) : place;
    // Further changes in the same hunk that sit in another declaration say so too.
    const others = laterPlaces(lines, cut.hunk, startsAt, firstChange).filter(
      (other) => other !== place && !first.includes(other),
    );
    result.captions.push([first, ...new Set(others)].join("; "));
    result.hunks.push(hunk);
    shift += after.length - lines.length;
    lines = after;
  });
  return result;
}

/** A block's snippet; its imports, when it changes more than them, as a compact one of their own. */
function importsApart(pick: Pick, checked: Checked, folded: number[]): PlacedBlock[] {
  const snippet = (from: number, to: number, why: string): PlacedBlock => ({
    path: pick.block.path,
    file: "changed",
    caption: [
      ...new Set(
        checked.captions
          .slice(from, to)
          .flatMap((caption) => (caption === undefined ? [] : caption.split("; "))),
      ),
    ].join("; "),
    hunks: checked.hunks.slice(from, to),
    block: { ...pick.block, why },
    folded: folded.slice(from, to - 1),
  });
  const first = checked.captions[0];
  const more = checked.captions.slice(1).some((caption) => caption !== undefined);
  if (first?.startsWith("imports") && more) {
    return [snippet(0, 1, ""), snippet(1, checked.hunks.length, pick.block.why)];
  }
  return [snippet(0, checked.hunks.length, pick.block.why)];
}

/**
 * A block that changes nothing: it shows code that stays as it is (a page may show it to say so),
 * or lines the blocks before it showed already, which is flagged so that
 * test/site/rebuild-from-pages.test.ts asks the page to select what is new.
 */
function unchangedBlock(pick: Pick, rows: StateRow[]): PlacedBlock {
  const found = cuts(
    rows,
    rows.map((row) => row.selected),
  );
  const selectsChanges = select(pick.change, pick.block.selectors).some((l) => l.kind !== " ");
  const lines = rows.map((row) => row.text);
  const first = rows.findIndex((row) => row.selected);
  const { place } = placeOf(lines, Math.max(first, 0), " ");
  return {
    path: pick.block.path,
    file: "changed",
    caption: selectsChanges ? "shown by a snippet above" : `unchanged, ${place}`,
    hunks: found.map((cut) => ({ rows: cut.hunk })),
    block: pick.block,
    folded: found.slice(1).map((cut, i) => cut.from - found[i]!.to - 1),
    ...(selectsChanges ? { repeats: true as const } : {}),
  };
}

function placeBlock(pick: Pick, k: number, owner: Map<DiffLine, number>): PlacedBlock[] {
  const rows = blockRows(pick, k, owner);
  const before = rows.filter((row) => row.kind !== "+").map((row) => row.text);
  const afterCount = rows.filter((row) => row.kind !== "-").length;
  const file = before.length === 0 ? "new" : afterCount === 0 ? "deleted" : "changed";
  if (rows.every((row) => row.kind === " ")) return [unchangedBlock(pick, rows)];
  const radius = rows.map(() => CONTEXT);
  for (;;) {
    const visible =
      file === "changed" ? visibleRows(rows, radius) : rows.map((row) => row.kind !== " ");
    const found = cuts(rows, visible);
    const checked = file === "changed" ? check(before, rows, found) : undefined;
    if (checked === undefined || checked.misplaced.length === 0) {
      const folded = found.slice(1).map((cut, i) => cut.from - found[i]!.to - 1);
      if (checked === undefined) {
        const caption = file === "new" ? "new file" : "deleted file";
        const hunks = found.map((cut) => ({ rows: cut.hunk }));
        return [{ path: pick.block.path, file, caption, hunks, block: pick.block, folded }];
      }
      return importsApart(pick, checked, folded);
    }
    let grew = false;
    for (const index of checked.misplaced) {
      const cut = found[index]!;
      for (let i = cut.from; i <= cut.to; i++) {
        if (rows[i]!.kind !== " " && radius[i]! < rows.length) {
          radius[i] = radius[i]! * 2;
          grew = true;
        }
      }
    }
    if (!grew) {
      throw new Error(
        `${pick.block.path}#${pick.block.selectors.join(",")}: no amount of unchanged lines places hunk ${checked.misplaced[0]! + 1} where it goes.`,
      );
    }
  }
}

/** Every block of a page, placed: in page order, each against the code the blocks before it built. */
export function placeBlocks(picks: Pick[]): PlacedBlock[] {
  const owner = owners(picks);
  return picks.flatMap((pick, k) => placeBlock(pick, k, owner).map((s) => ({ ...s, index: k })));
}
