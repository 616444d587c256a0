import { describe, expect, it } from "vitest";
import { visible } from "../src/terminal/visible-text.ts";

describe("visible: text from outside the harness, made safe to print", () => {
  it("writes out C0 controls, DEL and C1 controls as \\xNN", () => {
    expect(visible("a\x00b\x07c\x08d\re\x1bf\x7fg")).toBe("a\\x00b\\x07c\\x08d\\x0de\\x1bf\\x7fg");
    // \x9b is a one-byte CSI, \x9d a one-byte OSC: terminals that take 8-bit controls obey them.
    expect(visible("\x85\x9b2J\x9d0;t\x9c")).toBe("\\x85\\x9b2J\\x9d0;t\\x9c");
  });

  it("leaves escape sequences as plain text: nothing after ESC takes effect", () => {
    expect(visible("\x1b[8mhidden\x1b[0m")).toBe("\\x1b[8mhidden\\x1b[0m"); // conceal (CSI)
    expect(visible("\x1b[2K\x1b[1G\x1b[2J\x1b[H")).toBe("\\x1b[2K\\x1b[1G\\x1b[2J\\x1b[H");
    expect(visible("\x1b]0;title\x07")).toBe("\\x1b]0;title\\x07"); // window title (OSC)
    expect(visible("\x1b]52;c;cm0gLXJmIH4=\x1b\\")).toBe("\\x1b]52;c;cm0gLXJmIH4=\\x1b\\"); // clipboard
    expect(visible("\x1bP+q\x1b\\")).toBe("\\x1bP+q\\x1b\\"); // DCS
  });

  it("keeps \\n and \\t only for text of many lines, never \\r", () => {
    expect(visible("one\ntwo\tthree\r\n")).toBe("one\\x0atwo\\x09three\\x0d\\x0a");
    expect(visible("one\ntwo\tthree\r\n", { lines: true })).toBe("one\ntwo\tthree\\x0d\n");
    expect(visible("a\x1b[2Kb", { lines: true })).toBe("a\\x1b[2Kb");
  });

  it("writes out bidi marks, overrides and isolates as \\uNNNN", () => {
    expect(
      visible("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"),
    ).toBe("\\u061c\\u200e\\u200f\\u202a\\u202b\\u202c\\u202d\\u202e\\u2066\\u2067\\u2068\\u2069");
    expect(visible("node check.mjs \u202e#sj.kcehc")).toBe("node check.mjs \\u202e#sj.kcehc");
  });

  it("writes out characters that draw nothing", () => {
    const invisible = [
      "\u00ad", // soft hyphen (at or below U+00FF: \\xNN)
      "\u034f", // combining grapheme joiner
      "\u115f\u1160\u3164\uffa0", // Hangul fillers
      "\u17b4\u17b5", // Khmer inherent vowels
      "\u180b\u180e\u180f", // Mongolian variation selectors and vowel separator
      "\u200b\u200c\u200d", // zero-width space, non-joiner, joiner
      "\u2028\u2029", // line and paragraph separators
      "\u2060\u2061\u2064\u206a\u206f", // word joiner, invisible operators, deprecated formats
      "\ufeff", // byte order mark
      "\ufff9\ufffb", // interlinear annotations
    ].join("");
    expect(visible(invisible)).toBe(
      "\\xad\\u034f\\u115f\\u1160\\u3164\\uffa0\\u17b4\\u17b5\\u180b\\u180e\\u180f\\u200b\\u200c\\u200d\\u2028\\u2029\\u2060\\u2061\\u2064\\u206a\\u206f\\ufeff\\ufff9\\ufffb",
    );
    // Tags (ASCII smuggling), variation selectors 17-256 and musical formatting controls.
    expect(visible("a\u{e0041}\u{e007f}\u{e0100}\u{e01ef}\u{1d173}b")).toBe(
      "a\\u{e0041}\\u{e007f}\\u{e0100}\\u{e01ef}\\u{1d173}b",
    );
  });

  it("leaves ordinary text alone: letters of every script, emoji with their variation selector", () => {
    const text = "Fixed the café's bug → ok ✓ ⚠️ 日本語 עברית العربية 한글 🎉";
    expect(visible(text)).toBe(text);
    expect(visible(text, { lines: true })).toBe(text);
  });
});
