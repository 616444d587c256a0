/**
 * Text from the model, a file or a command, made safe to print. A terminal obeys what it is sent:
 * ESC[8m hides everything after it, ESC[2K erases the line, \r goes back to its start, ESC]0;…
 * sets the window title and ESC]52;… writes the clipboard. Bidi controls reorder what is shown,
 * and some characters show nothing at all. With them a model could draw a fake question and hide
 * the real one. Each such character is written out as its code (ESC as \x1b, U+202E as \u202e),
 * which leaves it visible and harmless. `lines` keeps \n and \t, for text of many lines such as
 * the model's answer; everything printed from outside the harness goes through here.
 */
export function visible(text: string, { lines = false } = {}): string {
  return text.replace(UNSAFE, (c) => (lines && (c === "\n" || c === "\t") ? c : codeOf(c)));
}

// C0 and C1 controls (ESC starts every escape sequence; \x9b is CSI in one byte), the soft hyphen,
// bidi marks, overrides and isolates, and what draws nothing: zero-width spaces and joiners, the
// word joiner and invisible operators, Hangul and Mongolian fillers, the BOM, tags and the
// variation selectors past the 16 that emoji use (the other 240 only hide data).
const UNSAFE =
  // eslint-disable-next-line no-control-regex, no-misleading-character-class -- what it looks for
  /[\u0000-\u001f\u007f-\u009f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ufeff\uffa0\ufff9-\ufffb\u{1d173}-\u{1d17a}\u{e0000}-\u{e0fff}]/gu;

function codeOf(c: string): string {
  const code = c.codePointAt(0)!;
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, "0")}`;
  return code <= 0xffff ? `\\u${code.toString(16).padStart(4, "0")}` : `\\u{${code.toString(16)}}`;
}
