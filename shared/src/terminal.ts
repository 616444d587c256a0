// Small helpers for command-line output. Colours are for people: they switch off when
// output goes to a file or a pipe, or when NO_COLOR is set (https://no-color.org).

import { styleText } from "node:util";

type Style = Parameters<typeof styleText>[0];

/** True when `stream` is a terminal and NO_COLOR is not set (to any non-empty value). */
export function colorEnabled(stream: NodeJS.WriteStream = process.stdout): boolean {
  const noColor = process.env.NO_COLOR;
  return stream.isTTY === true && (noColor === undefined || noColor === "");
}

function painter(
  style: Style,
  stream: NodeJS.WriteStream = process.stdout,
): (text: string) => string {
  return (text) => (colorEnabled(stream) ? styleText(style, text) : text);
}

/** Colour functions for stdout text; each returns `text` unchanged when colour is off. */
export const color = {
  red: painter("red"),
  green: painter("green"),
  yellow: painter("yellow"),
  blue: painter("blue"),
  cyan: painter("cyan"),
  magenta: painter("magenta"),
  gray: painter("gray"),
  bold: painter("bold"),
  dim: painter("dim"),
};

/** `error: <message>` as one line, for stderr. */
export function formatError(message: string): string {
  return `${painter("red", process.stderr)("error:")} ${message}`;
}

/** Prints `error: <message>` to stderr. */
export function printError(message: string): void {
  process.stderr.write(`${formatError(message)}\n`);
}

/** A one-line header such as `── scripted demo (offline model, no AI) ──`; returns the text, does not print it. */
export function banner(label: string): string {
  return color.dim(`── ${label} ──`);
}
