import { afterEach, describe, expect, it, vi } from "vitest";
import { banner, color, colorEnabled, formatError, printError } from "../src/terminal.ts";

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

function fakeStream(isTTY: boolean): NodeJS.WriteStream {
  return { isTTY } as NodeJS.WriteStream;
}

describe("terminal helpers", () => {
  it("uses colour only on a terminal without NO_COLOR", () => {
    vi.stubEnv("NO_COLOR", "");
    expect(colorEnabled(fakeStream(true))).toBe(true);
    expect(colorEnabled(fakeStream(false))).toBe(false);
    vi.stubEnv("NO_COLOR", "1");
    expect(colorEnabled(fakeStream(true))).toBe(false);
  });

  it("leaves text plain when output is not a terminal", () => {
    vi.stubEnv("NO_COLOR", "1");
    expect(color.red("x")).toBe("x");
    expect(banner("scripted demo")).toBe("── scripted demo ──");
    expect(formatError("no key")).toBe("error: no key");
  });

  it("prints errors as one line on stderr", () => {
    vi.stubEnv("NO_COLOR", "1");
    const write = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    printError("OPENAI_API_KEY is empty: set it or unset it");
    expect(write).toHaveBeenCalledWith("error: OPENAI_API_KEY is empty: set it or unset it\n");
  });
});
