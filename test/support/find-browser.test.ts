import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { HOW_TO_GET_ONE, findBrowser, type SearchPlace } from "./find-browser.ts";

/** A machine with exactly these files, and these folders' listings. */
function machine(
  files: string[],
  {
    env = {},
    platform = "linux",
    listings = {},
  }: Partial<{
    env: NodeJS.ProcessEnv;
    platform: NodeJS.Platform;
    listings: Record<string, string[]>;
  }> = {},
): SearchPlace {
  return {
    env,
    platform,
    home: "/home/reader",
    exists: (path) => files.includes(path),
    list: (dir) => listings[dir] ?? [],
    playwrightPath: () => "/home/reader/.cache/ms-playwright/chromium-1255/chrome-linux64/chrome",
  };
}

describe("findBrowser", () => {
  it("takes CHROME_PATH first, then BROWSER_PATH, over any system browser", () => {
    const files = ["/opt/mine/chrome", "/opt/other/chrome", "/usr/bin/chromium"];
    expect(findBrowser(machine(files, { env: { CHROME_PATH: "/opt/mine/chrome" } }))).toEqual({
      found: true,
      path: "/opt/mine/chrome",
      from: "CHROME_PATH",
    });
    expect(findBrowser(machine(files, { env: { BROWSER_PATH: "/opt/other/chrome" } }))).toEqual({
      found: true,
      path: "/opt/other/chrome",
      from: "BROWSER_PATH",
    });
  });

  it("says so when CHROME_PATH names nothing, rather than quietly using another browser", () => {
    const result = findBrowser(
      machine(["/usr/bin/chromium"], { env: { CHROME_PATH: "/nope/chrome" } }),
    );
    expect(result).toEqual({
      found: false,
      reason: "CHROME_PATH=/nope/chrome does not exist",
      howToGetOne:
        "point CHROME_PATH at a Chrome or Chromium binary, or unset it to search the usual places",
    });
  });

  it("finds Debian's chromium and Google Chrome on Linux", () => {
    expect(findBrowser(machine(["/usr/bin/chromium"]))).toMatchObject({
      path: "/usr/bin/chromium",
      from: "system",
    });
    expect(findBrowser(machine(["/usr/bin/google-chrome-stable"]))).toMatchObject({
      path: "/usr/bin/google-chrome-stable",
    });
  });

  it("finds Chrome in the Applications folders on macOS, the user's own included", () => {
    const own = "/home/reader/Applications/Google Chrome.app/Contents/MacOS/Google Chrome";
    expect(findBrowser(machine([own], { platform: "darwin" }))).toMatchObject({ path: own });
  });

  it("finds a Chromium Playwright installed: its own build first, then the newest in its cache", () => {
    const own = "/home/reader/.cache/ms-playwright/chromium-1255/chrome-linux64/chrome";
    expect(findBrowser(machine([own]))).toMatchObject({ path: own, from: "Playwright's cache" });

    const cache = "/home/reader/.cache/ms-playwright";
    const older = join(cache, "chromium-1100/chrome-linux/chrome");
    const newer = join(cache, "chromium-1200/chrome-linux/chrome");
    const listings = { [cache]: ["chromium-1100", "chromium-1200", "ffmpeg-1011"] };
    expect(findBrowser(machine([older, newer], { listings }))).toMatchObject({ path: newer });
  });

  it("looks in PLAYWRIGHT_BROWSERS_PATH when it is set", () => {
    const binary = "/srv/pw/chromium-1300/chrome-linux64/chrome";
    const place = machine([binary], {
      env: { PLAYWRIGHT_BROWSERS_PATH: "/srv/pw" },
      listings: { "/srv/pw": ["chromium-1300"] },
    });
    expect(findBrowser(place)).toMatchObject({ path: binary });
  });

  it("with no browser anywhere, says where it looked and how to get one", () => {
    expect(findBrowser(machine([]))).toEqual({
      found: false,
      reason:
        "no Chrome or Chromium found (CHROME_PATH, the usual system places, Playwright's cache)",
      howToGetOne: HOW_TO_GET_ONE,
    });
    expect(HOW_TO_GET_ONE).toContain("CHROME_PATH=");
    expect(HOW_TO_GET_ONE).toContain("apt-get install chromium");
    expect(HOW_TO_GET_ONE).toContain("npx playwright install chromium");
  });
});
