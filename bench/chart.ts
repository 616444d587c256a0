// The chart on the site's benchmark page, written as SVG by hand: no chart library for three plots.
// Top: every row that has a target, as its value over the target on a log scale, so the target
// is the same line for all (left of it passes). Bottom: the two scaling sweeps, CPU time against
// size on log-log axes, ours and GNU patch.
import type { Row } from "./report.ts";
import type { ScalingPoint } from "./scaling.ts";

const WIDTH = 760;
const FONT = `font-family="system-ui, sans-serif" font-size="12"`;
const OURS = "#2563eb";
const PATCH = "#9ca3af";
const PASS = "#16a34a";
const MISS = "#dc2626";

const escape = (text: string): string =>
  text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
const text = (x: number, y: number, content: string, extra = ""): string =>
  `<text x="${x.toFixed(1)}" y="${y.toFixed(1)}" ${extra}>${escape(content)}</text>`;

export interface ChartInput {
  rows: Row[];
  linesSweep: ScalingPoint[];
  hunksSweep: ScalingPoint[];
}

export function benchChart(input: ChartInput): string {
  const targets = input.rows.filter((r) => r.limit !== undefined && r.value !== undefined);
  const top = targetsPanel(targets, 0);
  const plotsTop = top.height + 20;
  const half = WIDTH / 2;
  const lines = scalingPlot(input.linesSweep, (p) => p.lines, "lines", 0, plotsTop, half);
  const hunks = scalingPlot(input.hunksSweep, (p) => p.hunks, "hunks", half, plotsTop, half);
  const height = plotsTop + 250;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${height}" width="${WIDTH}" height="${height}" ${FONT}>`,
    `<rect width="${WIDTH}" height="${height}" fill="#ffffff"/>`,
    top.svg,
    lines,
    hunks,
    "</svg>",
    "",
  ].join("\n");
}

/** One bar per target row: value ÷ limit on a log axis from 0.01 to 100; the target is at 1. */
function targetsPanel(rows: Row[], y0: number): { svg: string; height: number } {
  const left = 300;
  const right = WIDTH - 70;
  const [lo, hi] = [Math.log10(0.01), Math.log10(100)];
  const x = (fraction: number): number => {
    // An exponent can be zero or below (no slower with size): it sits at the axis' left end.
    const clamped = fraction > 0 ? Math.min(Math.max(Math.log10(fraction), lo), hi) : lo;
    return left + ((clamped - lo) / (hi - lo)) * (right - left);
  };
  const rowHeight = 26;
  const top = y0 + 40;
  const parts = [
    text(
      10,
      y0 + 20,
      "Each measure divided by its target (log scale): left of the line passes",
      `font-weight="bold"`,
    ),
  ];
  rows.forEach((r, i) => {
    const y = top + i * rowHeight;
    const fraction = r.value! / r.limit!;
    const colour = r.verdict === "PASS" ? PASS : MISS;
    parts.push(
      text(
        left - 8,
        y + 14,
        r.label ?? `${r.section}: ${r.measure}`.slice(0, 45),
        `text-anchor="end"`,
      ),
      `<rect x="${left}" y="${y + 3}" width="${(x(fraction) - left).toFixed(1)}" height="16" fill="${colour}" opacity="0.8"/>`,
      text(x(fraction) + 4, y + 15, `${formatValue(r.value!, r.target)} (target ${r.target})`),
    );
  });
  const bottom = top + rows.length * rowHeight;
  parts.push(
    `<line x1="${x(1)}" y1="${top - 6}" x2="${x(1)}" y2="${bottom}" stroke="#111" stroke-dasharray="4 3"/>`,
  );
  for (const tick of [0.01, 0.1, 1, 10, 100]) {
    parts.push(text(x(tick), bottom + 14, `${tick}×`, `text-anchor="middle" fill="#555"`));
  }
  return { svg: parts.join("\n"), height: bottom + 20 - y0 };
}

/** 37.0×, 0.98, 1,547: a ratio as the target writes it, a count without decimals. */
function formatValue(value: number, target: string): string {
  if (value >= 100) return value.toLocaleString("en", { maximumFractionDigits: 0 });
  return target.includes("×") ? `${value.toFixed(value >= 10 ? 1 : 2)}×` : value.toFixed(2);
}

/** CPU time against size, log-log, one polyline per engine. */
function scalingPlot(
  points: ScalingPoint[],
  size: (p: ScalingPoint) => number,
  unit: string,
  x0: number,
  y0: number,
  width: number,
): string {
  const [left, right, top, bottom] = [x0 + 60, x0 + width - 20, y0 + 30, y0 + 200];
  const series = [
    { name: "ours (in process)", colour: OURS, ms: points.map((p) => p.ours.cpuMedian) },
    { name: "GNU patch (process)", colour: PATCH, ms: points.map((p) => p.patch?.cpuMedian) },
  ];
  const all = series.flatMap((s) => s.ms).filter((v): v is number => v !== undefined && v > 0);
  const sizes = points.map(size);
  const [xlo, xhi] = [Math.log10(Math.min(...sizes)), Math.log10(Math.max(...sizes))];
  const [ylo, yhi] = [
    Math.floor(Math.log10(Math.min(...all))),
    Math.ceil(Math.log10(Math.max(...all))),
  ];
  const px = (v: number): number =>
    left + ((Math.log10(v) - xlo) / (xhi - xlo || 1)) * (right - left);
  const py = (v: number): number =>
    bottom - ((Math.log10(v) - ylo) / (yhi - ylo || 1)) * (bottom - top);
  const parts = [
    text(x0 + 10, y0 + 14, `CPU time against ${unit} (log-log)`, `font-weight="bold"`),
    `<rect x="${left}" y="${top}" width="${right - left}" height="${bottom - top}" fill="none" stroke="#ccc"/>`,
  ];
  for (let e = ylo; e <= yhi; e++) {
    const v = 10 ** e;
    parts.push(
      `<line x1="${left}" y1="${py(v).toFixed(1)}" x2="${right}" y2="${py(v).toFixed(1)}" stroke="#eee"/>`,
      text(
        left - 6,
        py(v) + 4,
        v >= 1000 ? `${v / 1000} s` : `${v} ms`,
        `text-anchor="end" fill="#555"`,
      ),
    );
  }
  for (const s of sizes) {
    const label = s >= 1e6 ? `${s / 1e6}M` : s >= 1e4 ? `${s / 1e3}k` : `${s}`;
    parts.push(text(px(s), bottom + 16, label, `text-anchor="middle" fill="#555"`));
  }
  series.forEach((s, i) => {
    const xy = s.ms.flatMap((v, j) => (v === undefined || v <= 0 ? [] : [[px(sizes[j]!), py(v)]]));
    if (xy.length > 0) {
      parts.push(
        `<polyline points="${xy.map(([a, b]) => `${a!.toFixed(1)},${b!.toFixed(1)}`).join(" ")}" fill="none" stroke="${s.colour}" stroke-width="2"/>`,
        ...xy.map(
          ([a, b]) =>
            `<circle cx="${a!.toFixed(1)}" cy="${b!.toFixed(1)}" r="3.5" fill="${s.colour}"/>`,
        ),
      );
    }
    const lx = left + i * 150;
    parts.push(
      `<rect x="${lx}" y="${bottom + 29}" width="10" height="10" fill="${s.colour}"/>`,
      text(lx + 14, bottom + 38, s.name),
    );
  });
  return parts.join("\n");
}
