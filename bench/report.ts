// The one table pnpm bench prints and writes: a row per measure, with its target and PASS/MISS.
import type { Stats } from "./measure.ts";

export interface Row {
  section: string;
  measure: string;
  /** A short name for the chart, e.g. "Engine vs GNU patch". */
  label?: string;
  ours: string;
  reference: string;
  /** The number the target is about: a CPU ratio, an exponent, a token count. */
  value: number | undefined;
  /** How `value` reads, e.g. "31.2× CPU (wall 29.0×)". */
  result: string;
  /** The most `value` may be; undefined when the row is reported without a target. */
  limit: number | undefined;
  target: string;
  verdict: "PASS" | "MISS" | "info" | "n/a";
}

export function row(fields: Omit<Row, "verdict" | "target"> & { target?: string }): Row {
  const verdict =
    fields.value === undefined || !Number.isFinite(fields.value)
      ? "n/a"
      : fields.limit === undefined
        ? "info"
        : fields.value <= fields.limit
          ? "PASS"
          : "MISS";
  return { ...fields, target: fields.target ?? "—", verdict };
}

/** Kilobytes as megabytes, with a decimal below 10 MB. */
export function mb(kb: number): string {
  const value = kb / 1024;
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} MB`;
}

export function ms(value: number): string {
  if (value >= 1000) return `${(value / 1000).toFixed(2)} s`;
  if (value >= 100) return `${Math.round(value)} ms`;
  if (value >= 10) return `${value.toFixed(1)} ms`;
  return `${value.toFixed(2)} ms`;
}

/** "CPU 812 ms (min 700 ms), wall 1.02 s (min 950 ms)" */
export function timing(stats: Stats): string {
  return `CPU ${ms(stats.cpuMedian)} (min ${ms(stats.cpuMin)}), wall ${ms(stats.wallMedian)} (min ${ms(stats.wallMin)})`;
}

export interface Ratio {
  cpu: number;
  cpuMin: number;
  wall: number;
  wallMin: number;
}

/** Ours over the reference, median over median and minimum over minimum. */
export function ratio(ours: Stats, reference: Stats): Ratio {
  return {
    cpu: ours.cpuMedian / reference.cpuMedian,
    cpuMin: ours.cpuMin / reference.cpuMin,
    wall: ours.wallMedian / reference.wallMedian,
    wallMin: ours.wallMin / reference.wallMin,
  };
}

export const times = (value: number): string =>
  `${value >= 10 ? value.toFixed(1) : value.toFixed(2)}×`;

export function ratioText(r: Ratio): string {
  return `${times(r.cpu)} CPU (min ${times(r.cpuMin)}), ${times(r.wall)} wall (min ${times(r.wallMin)})`;
}

const COLUMNS = ["Section", "Measure", "Ours", "Reference", "Result", "Target", "Verdict"];
const cells = (r: Row): string[] => [
  r.section,
  r.measure,
  r.ours,
  r.reference,
  r.result,
  r.target,
  r.verdict,
];

/** For the terminal: one block per row, since the cells are too long for one line each. */
export function consoleTable(rows: Row[]): string {
  const width = Math.max(...rows.map((r) => `${r.section}: ${r.measure}`.length));
  return rows
    .map((r) => {
      const head = `${r.section}: ${r.measure}`.padEnd(width);
      const lines = [`${r.verdict.padEnd(4)}  ${head}  ${r.result}   target ${r.target}`];
      if (r.ours !== "") lines.push(`      ours       ${r.ours}`);
      if (r.reference !== "") lines.push(`      reference  ${r.reference}`);
      return lines.join("\n");
    })
    .join("\n");
}

export function markdownTable(rows: Row[]): string {
  const escape = (text: string): string => text.replaceAll("|", "\\|");
  return [
    `| ${COLUMNS.join(" | ")} |`,
    `| ${COLUMNS.map(() => "---").join(" | ")} |`,
    ...rows.map((r) => `| ${cells(r).map(escape).join(" | ")} |`),
  ].join("\n");
}
