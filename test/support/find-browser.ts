// Finds a Chrome or Chromium for the site's browser test. It never downloads one: a reader's
// machine uses the browser it already has, and CI installs Debian's chromium (.ci/run).
//
// Where it looks, in order: CHROME_PATH or BROWSER_PATH; the usual system locations on Linux,
// macOS and Windows; a Chromium that Playwright has already put in its cache.
import { existsSync, readdirSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";

export type BrowserSearch =
  | { found: true; path: string; from: string }
  | { found: false; reason: string; howToGetOne: string };

/** What the search may look at; tests pass their own. */
export interface SearchPlace {
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  home: string;
  exists: (path: string) => boolean;
  list: (dir: string) => string[];
  /** Where this playwright-core would have installed its own Chromium (it may not be there). */
  playwrightPath: () => string | undefined;
}

const SYSTEM_PATHS: Partial<Record<NodeJS.Platform, string[]>> = {
  linux: [
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
    "/usr/bin/google-chrome",
    "/usr/bin/google-chrome-stable",
    "/snap/bin/chromium",
    "/opt/google/chrome/chrome",
  ],
  darwin: [
    "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
    "/Applications/Chromium.app/Contents/MacOS/Chromium",
    "~/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
    "~/Applications/Chromium.app/Contents/MacOS/Chromium",
  ],
  win32: [
    "C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe",
    "C:\\Program Files (x86)\\Google\\Chrome\\Application\\chrome.exe",
  ],
};

/** Inside a Playwright cache folder such as chromium-1255/, where each platform's build keeps its binary. */
const PLAYWRIGHT_BINARIES = [
  "chrome-linux64/chrome",
  "chrome-linux/chrome",
  "chrome-mac-arm64/Chromium.app/Contents/MacOS/Chromium",
  "chrome-mac/Chromium.app/Contents/MacOS/Chromium",
  "chrome-win64/chrome.exe",
  "chrome-win/chrome.exe",
];

export const HOW_TO_GET_ONE =
  "set CHROME_PATH=/path/to/chrome, or `apt-get install chromium` (Debian/Ubuntu), or `npx playwright install chromium`";

export function findBrowser(place: SearchPlace = thisMachine()): BrowserSearch {
  for (const name of ["CHROME_PATH", "BROWSER_PATH"]) {
    const path = place.env[name];
    if (path === undefined || path === "") continue;
    // An explicit choice that is wrong is the reader's mistake to fix, not a reason to look elsewhere.
    if (place.exists(path)) return { found: true, path, from: name };
    return {
      found: false,
      reason: `${name}=${path} does not exist`,
      howToGetOne: `point ${name} at a Chrome or Chromium binary, or unset it to search the usual places`,
    };
  }
  const system = (SYSTEM_PATHS[place.platform] ?? []).map((path) =>
    path.startsWith("~/") ? join(place.home, path.slice(2)) : path,
  );
  const path = [...system, ...playwrightCandidates(place)].find((candidate) =>
    place.exists(candidate),
  );
  if (path !== undefined) {
    return { found: true, path, from: system.includes(path) ? "system" : "Playwright's cache" };
  }
  return {
    found: false,
    reason:
      "no Chrome or Chromium found (CHROME_PATH, the usual system places, Playwright's cache)",
    howToGetOne: HOW_TO_GET_ONE,
  };
}

/** This playwright-core's own build first, then any build in the cache, newest first. */
function playwrightCandidates(place: SearchPlace): string[] {
  const own = place.playwrightPath();
  const cache = playwrightCache(place);
  const builds = place
    .list(cache)
    .filter((name) => /^chromium-\d+$/.test(name))
    .sort((a, b) => Number(b.slice(9)) - Number(a.slice(9)));
  const cached = builds.flatMap((build) =>
    PLAYWRIGHT_BINARIES.map((binary) => join(cache, build, binary)),
  );
  return own === undefined ? cached : [own, ...cached];
}

/** Playwright's documented cache folders (PLAYWRIGHT_BROWSERS_PATH overrides them). */
function playwrightCache({ env, platform, home }: SearchPlace): string {
  const override = env.PLAYWRIGHT_BROWSERS_PATH;
  if (override !== undefined && override !== "" && override !== "0") return override;
  if (platform === "darwin") return join(home, "Library", "Caches", "ms-playwright");
  if (platform === "win32") {
    return join(env.LOCALAPPDATA ?? join(home, "AppData", "Local"), "ms-playwright");
  }
  return join(env.XDG_CACHE_HOME ?? join(home, ".cache"), "ms-playwright");
}

function thisMachine(): SearchPlace {
  return {
    env: process.env,
    platform: process.platform,
    home: homedir(),
    exists: existsSync,
    list: (dir) => {
      try {
        return readdirSync(dir);
      } catch {
        return [];
      }
    },
    playwrightPath: () => chromium.executablePath(),
  };
}
